package io.argus.pipeline.base;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * A call into an in-process service owned by a verticle: it runs on the verticle's context, so the verticle stays
 * single-threaded whoever calls, and its outcome comes back on the caller's context, so the caller's continuation is
 * single-threaded too (as with a request and its reply on the event bus, without a message or a codec). A caller
 * outside Vert.x (a test, the command line) gets the outcome on the service's thread.
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
        Promise<T> outcome = Promise.promise();
        service.runOnContext(v -> run(work).onComplete(ar -> {
            if (caller != null) caller.runOnContext(x -> outcome.handle(ar));
            else outcome.handle(ar);
        }));
        return outcome.future();
    }

    private static <T> Future<T> run(Supplier<Future<T>> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }
}
