package io.argus.trainer.nn;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed set of threads for the data-parallel loops of training (over images, over channels). Each call splits
 * {@code [0, count)} into one contiguous range per thread; the calling thread runs the first range itself. Ranges are
 * fixed by (count, threads) alone, so a loop whose iterations write disjoint memory gives bit-identical results on
 * every run.
 */
public final class Workers implements AutoCloseable {
    /** Body of a parallel loop: handles {@code [from, to)} as the thread numbered {@code worker}. */
    @FunctionalInterface
    public interface Range {
        void run(int worker, int from, int to);
    }

    private final int threads;
    private final ExecutorService pool;

    public Workers(int threads) {
        if (threads <= 0) throw new IllegalArgumentException("threads must be positive, got " + threads);
        this.threads = threads;
        AtomicInteger n = new AtomicInteger();
        this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads - 1, r -> {
            Thread t = new Thread(r, "argus-train-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** One thread per available processor. */
    public static Workers perProcessor() {
        return new Workers(Runtime.getRuntime().availableProcessors());
    }

    public int threads() { return threads; }

    /** Runs {@code body} over {@code [0, count)} split into at most {@link #threads()} ranges; returns when all are done. */
    public void forRange(int count, Range body) {
        int parts = Math.min(threads, count);
        if (parts <= 1) {
            if (count > 0) body.run(0, 0, count);
            return;
        }
        @SuppressWarnings("unchecked")
        Future<?>[] futures = new Future<?>[parts - 1];
        for (int p = 1; p < parts; p++) {
            int from = start(count, parts, p);
            int to = start(count, parts, p + 1);
            int worker = p;
            futures[p - 1] = pool.submit(() -> body.run(worker, from, to));
        }
        Throwable failure = null;
        try {
            body.run(0, 0, start(count, parts, 1));
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = e;
            } catch (java.util.concurrent.ExecutionException e) {
                if (failure == null) failure = e.getCause();
            }
        }
        if (failure instanceof RuntimeException r) throw r;
        if (failure instanceof Error err) throw err;
        if (failure != null) throw new IllegalStateException(failure);
    }

    private static int start(int count, int parts, int p) {
        return (int) ((long) count * p / parts);
    }

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
