package io.argus.pipeline.training;

import io.argus.pipeline.base.RequestRefused;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Weights sent as a request body ({@code POST /api/models/:id/versions}, {@code application/octet-stream}) streamed
 * into the 0600 file the registry staged for them ({@link UploadTicket}), hashed as they arrive, never held whole in memory. A declared {@code content-length} that weights
 * of the network cannot have is refused before a byte is read; the body is cut off as soon as it passes the larger
 * size, or when nothing arrives for {@value #IDLE_MS} ms. On the event loop: every step is asynchronous.
 */
public final class WeightsUpload {
    /** A client that stops sending holds an upload slot and a file: this long without a byte ends its upload. */
    static final long IDLE_MS = 30_000;

    /** What arrived: its SHA-256 (64 hex digits) and size. */
    public record Received(String sha256, long bytes) {}

    private final Vertx vertx;
    private final HttpServerRequest request;
    private final UploadTicket ticket;
    private final long shortSize, longSize;
    private final Promise<Received> done = Promise.promise();
    private final MessageDigest sha = WeightsIntake.sha256();
    private AsyncFile file;
    private long bytes;
    private long idleTimer = -1;
    private long lastData = System.nanoTime();

    private WeightsUpload(Vertx vertx, HttpServerRequest request, UploadTicket ticket) {
        this.vertx = vertx;
        this.request = request;
        this.ticket = ticket;
        this.shortSize = Math.min(ticket.shortSize(), ticket.longSize());
        this.longSize = Math.max(ticket.shortSize(), ticket.longSize());
    }

    /**
     * Receives {@code request}'s body (paused by the caller, so nothing is lost) into the ticket's file. Fails with a
     * {@link RequestRefused} (400 a size weights cannot have, 413 more than that, 408 stalled) or an I/O error.
     */
    public static Future<Received> receive(Vertx vertx, HttpServerRequest request, UploadTicket ticket) {
        return new WeightsUpload(vertx, request, ticket).start();
    }

    private Future<Received> start() {
        String declared = request.getHeader("content-length");
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException e) {
                return Future.failedFuture(new RequestRefused(400, "content-length: expected a number of bytes"));
            }
            if (length != shortSize && length != longSize) return Future.failedFuture(wrongSize(length, "content-length"));
        }
        vertx.fileSystem().open(ticket.file().toString(), new OpenOptions().setWrite(true).setCreate(false).setTruncateExisting(true))
                .onFailure(done::tryFail)
                .onSuccess(f -> {
                    file = f;
                    if ("100-continue".equalsIgnoreCase(request.getHeader("expect"))) request.response().writeContinue();
                    idleTimer = vertx.setPeriodic(IDLE_MS / 4, t -> {
                        if (System.nanoTime() - lastData > IDLE_MS * 1_000_000) {
                            done.tryFail(new RequestRefused(408, "body: no data for " + IDLE_MS / 1000 + " s after "
                                    + bytes + " bytes: upload given up"));
                        }
                    });
                    request.handler(this::data);
                    request.exceptionHandler(e -> done.tryFail(new RequestRefused(400, "body: the upload broke off after "
                            + bytes + " bytes (" + e.getMessage() + ")")));
                    request.endHandler(v -> end());
                    request.resume();
                });
        return done.future().onComplete(ar -> {
            if (idleTimer >= 0) vertx.cancelTimer(idleTimer);
            if (ar.failed() && file != null) file.close();
        });
    }

    private void data(io.vertx.core.buffer.Buffer b) {
        if (done.future().isComplete()) return;
        lastData = System.nanoTime();
        bytes += b.length();
        if (bytes > longSize) {
            done.tryFail(wrongSize(bytes, "body (cut off)"));
            return;
        }
        sha.update(b.getBytes());
        file.write(b);
        if (file.writeQueueFull()) {
            request.pause();
            file.drainHandler(v -> request.resume());
        }
    }

    private void end() {
        if (done.future().isComplete()) return;
        if (bytes != shortSize && bytes != longSize) {
            done.tryFail(wrongSize(bytes, "body"));
            return;
        }
        // forced to disk before the registry names it: a power cut cannot leave a version with half its weights
        file.flush().compose(v -> file.close())
                .onSuccess(v -> done.tryComplete(new Received(HexFormat.of().formatHex(sha.digest()), bytes)))
                .onFailure(done::tryFail);
    }

    private RequestRefused wrongSize(long found, String what) {
        return new RequestRefused(found > longSize ? 413 : 400, what + ": expected " + ticket.expected()
                + ", found " + found + " bytes");
    }
}
