package io.argus.pipeline.base;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A call into an in-process service owned by a verticle: it runs on the verticle's context, so the verticle stays
 * single-threaded whoever calls, and its outcome comes back on the caller's context, so the caller's continuation is
 * single-threaded too (as with a request and its reply on the event bus, without a message or a codec). The future
 * returned belongs to the caller's context: what the caller chains on it, a {@code timeout} included, runs there. A
 * caller outside Vert.x (a test, the command line) gets the outcome on the service's thread.
 */
public final class ServiceCall {
    private ServiceCall() {}

    /**
     * {@code work} on {@code service}'s context; a {@link RuntimeException} it throws fails the future. A service not
     * started yet (no context) fails with 503.
     */
    public static <T> Future<T> on(Context service, Supplier<Future<T>> work) {
        if (service == null) return Future.failedFuture(new RequestRefused(503, "not started yet: try again"));
        Context caller = Vertx.currentContext();
        if (caller == service) return run(work);
        CompletableFuture<T> outcome = new CompletableFuture<>();
        service.runOnContext(v -> run(work).onComplete(ar -> {
            if (ar.succeeded()) outcome.complete(ar.result());
            else outcome.completeExceptionally(ar.cause());
        }));
        return caller != null ? Future.fromCompletionStage(outcome, caller) : Future.fromCompletionStage(outcome);
    }

    private static <T> Future<T> run(Supplier<Future<T>> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }
}
