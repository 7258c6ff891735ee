package io.argus.pipeline.training;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * One named thread for a verticle's blocking work (files, image encoding, model loading), in submission order, with
 * results delivered back on the verticle's context as futures. Work from other threads (the inference thread's
 * collector tap) joins the same queue through {@link #executor()}.
 */
final class BlockingLane implements AutoCloseable {
    private final ExecutorService executor;
    private final Context context;

    BlockingLane(String name, int priority, Context context) {
        this.context = context;
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            t.setPriority(priority);
            return t;
        });
    }

    <T> Future<T> run(Callable<T> work) {
        Promise<T> p = Promise.promise();
        try {
            executor.execute(() -> {
                try {
                    T r = work.call();
                    context.runOnContext(v -> p.complete(r));
                } catch (Throwable e) {
                    context.runOnContext(v -> p.fail(e));
                }
            });
        } catch (RejectedExecutionException e) {
            p.fail(new IllegalStateException("stopped"));
        }
        return p.future();
    }

    ExecutorService executor() { return executor; }

    @Override
    public void close() { executor.shutdown(); }
}
