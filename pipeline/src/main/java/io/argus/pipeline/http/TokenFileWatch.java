package io.argus.pipeline.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Follows the token file while the server runs, so {@code argus token rotate} takes effect without a restart: every
 * {@link #PERIOD_MS} it asks for the file's modification time and, when that changed, reads the file and hands the new
 * token on. Both are Vert.x's asynchronous file operations: the event loop never waits for the disk. A missing or empty
 * file keeps the current token (and says so once).
 */
final class TokenFileWatch {
    static final long PERIOD_MS = 1000;
    private static final System.Logger LOG = System.getLogger("argus.http");

    private final Vertx vertx;
    private final Path file;
    private final Consumer<String> onChange;
    private long lastModified;
    private boolean busy;
    private boolean warned;
    private long timer = -1;

    TokenFileWatch(Vertx vertx, Path file, long lastModified, Consumer<String> onChange) {
        this.vertx = vertx;
        this.file = file;
        this.lastModified = lastModified;
        this.onChange = onChange;
    }

    void start() { timer = vertx.setPeriodic(PERIOD_MS, id -> check()); }

    void stop() {
        if (timer >= 0) vertx.cancelTimer(timer);
    }

    private void check() {
        if (busy) return;
        busy = true;
        String path = file.toString();
        vertx.fileSystem().props(path)
                .compose(props -> {
                    if (props.lastModifiedTime() == lastModified) return Future.succeededFuture();
                    long modified = props.lastModifiedTime();
                    return vertx.fileSystem().readFile(path).map(b -> {
                        String token = b.toString().strip();
                        if (token.isEmpty()) throw new IllegalStateException("the file is empty");
                        lastModified = modified;
                        onChange.accept(token);
                        warned = false;
                        LOG.log(Level.INFO, "access token changed: now the one in {0}", path); // never the token itself
                        return null;
                    });
                })
                .onComplete(ar -> {
                    busy = false;
                    if (ar.failed() && !warned) {
                        warned = true;
                        LOG.log(Level.WARNING, "cannot read the access token file {0} ({1}); the current token stays in force",
                                path, ar.cause().getMessage());
                    }
                });
    }
}
