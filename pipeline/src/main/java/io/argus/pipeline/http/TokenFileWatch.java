package io.argus.pipeline.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.lang.System.Logger.Level;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Follows the token file while the server runs, so {@code argus token rotate} takes effect without a restart: every
 * {@link #PERIOD_MS} it asks for the file's modification time (Vert.x's asynchronous file system: the event loop never
 * waits for the disk) and, when that changed, reads the file on a worker with every check of {@link TokenFile#read}
 * and hands the new token on. A file that fails them (made readable or writable by others, owned by another user, a
 * link, too short) never becomes the token: the current one stays in force, the log says why once, and the file is
 * looked at again each period, so fixing it (say {@code chmod 600}) takes effect. A missing or empty file keeps the
 * current token too.
 */
final class TokenFileWatch {
    static final long PERIOD_MS = 1000;
    private static final System.Logger LOG = System.getLogger("argus.http");

    private final Vertx vertx;
    private final Path file;
    private final Consumer<String> onChange;
    private long lastModified;
    private boolean busy;
    /** Why the changed file is not used, as last logged (null: it is used); each reason is logged once. */
    private String problem;
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
                    // checked again before it is used: a file another user could have written must never be the token
                    return vertx.executeBlocking(() -> TokenFile.read(file)
                                    .orElseThrow(() -> new NoSuchFileException(path, null, "no such file")))
                            .map(token -> {
                                lastModified = modified;
                                onChange.accept(token);
                                problem = null;
                                LOG.log(Level.INFO, "access token changed: now the one in {0}", path); // never the token itself
                                return null;
                            });
                })
                .onComplete(ar -> {
                    busy = false;
                    String why = ar.failed() ? String.valueOf(ar.cause().getMessage()) : null;
                    if (why != null && !why.equals(problem)) {
                        LOG.log(Level.WARNING, "the access token file {0} is not used ({1}); the current token stays in force",
                                path, why);
                    }
                    if (why != null) problem = why;
                });
    }
}
