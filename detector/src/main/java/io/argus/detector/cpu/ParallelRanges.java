package io.argus.detector.cpu;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The Java side of the CPU engine's parallelism: a loop over {@code [0, count)} split into one contiguous range per
 * thread, as many threads as oneDNN runs ({@link #threadCount()}), the calling thread running the first range. oneDNN
 * runs its primitives on its own OpenMP threads; the Java loops (Winograd's tile transforms) run between two
 * primitives, while those threads sleep ({@code OMP_WAIT_POLICY=PASSIVE}, set by bin/argus), so both share the same
 * cores without competing.
 *
 * <p>Nothing is allocated per loop (the engine's forward pass allocates nothing: {@code AllocationFreeTest}): each
 * helper thread parks until the caller hands it a new generation number, runs its range, counts down and parks again;
 * helpers never spin, so a loop's caller never takes a core from oneDNN. Ranges depend on (count, threads) alone, so
 * a loop whose ranges write disjoint memory gives bit-identical results on every run.
 */
final class ParallelRanges implements AutoCloseable {
    /** A loop body: handles {@code [from, to)} as the thread numbered {@code worker} (0: the caller). */
    @FunctionalInterface
    interface Body {
        void run(int worker, int from, int to);
    }

    private final int threads;
    private final Helper[] helpers;
    private volatile Body body;
    private volatile int count;
    private volatile int parts;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile Throwable failure;
    private volatile Thread caller;
    private volatile boolean closed;
    private long generation;

    ParallelRanges(int threads) {
        if (threads <= 0) throw new IllegalArgumentException("threads must be positive, got " + threads);
        this.threads = threads;
        this.helpers = new Helper[threads - 1];
        for (int i = 0; i < helpers.length; i++) {
            helpers[i] = new Helper(i + 1);
            helpers[i].thread.start();
        }
    }

    /** oneDNN's thread count: OMP_NUM_THREADS when set, else one per available processor. */
    static int threadCount() {
        String omp = System.getenv("OMP_NUM_THREADS");
        if (omp != null) {
            try {
                int n = Integer.parseInt(omp.strip());
                if (n > 0) return n;
            } catch (NumberFormatException e) {
                // OpenMP ignores a value it cannot read; so do we
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    int threads() { return threads; }

    /**
     * Runs {@code loop} over {@code [0, count)} in at most {@link #threads()} ranges and returns when all are done
     * (one range, on the caller, when {@code count} is below 2 or there is one thread). One loop at a time: callers
     * on several threads must not share one instance. A failure in any range is thrown here.
     */
    void forRange(int count, Body loop) {
        int n = Math.min(threads, count);
        if (n <= 1) {
            if (count > 0) loop.run(0, 0, count);
            return;
        }
        if (closed) throw new IllegalStateException("parallel loops closed");
        this.body = loop;
        this.count = count;
        this.parts = n;
        this.failure = null;
        this.caller = Thread.currentThread();
        pending.set(n - 1);
        generation++;
        for (int h = 0; h < n - 1; h++) helpers[h].start(generation);
        Throwable mine = null;
        try {
            loop.run(0, 0, boundary(count, n, 1));
        } catch (RuntimeException | Error e) {
            mine = e;
        }
        // the helpers' ranges are about as long as ours: a short spin usually sees them done without a park
        for (int spin = 0; pending.get() > 0 && spin < 2_000; spin++) Thread.onSpinWait();
        while (pending.get() > 0) LockSupport.park(this);
        this.body = null;
        Throwable theirs = failure;
        if (mine == null) mine = theirs;
        if (mine instanceof RuntimeException r) throw r;
        if (mine instanceof Error e) throw e;
        if (mine != null) throw new IllegalStateException(mine);
    }

    /** Where range {@code p} of {@code parts} over {@code [0, count)} starts. */
    private static int boundary(int count, int parts, int p) {
        return (int) ((long) count * p / parts);
    }

    @Override
    public void close() {
        closed = true;
        for (Helper h : helpers) LockSupport.unpark(h.thread);
    }

    /** One helper thread: runs range {@code index} of each loop it is started for. */
    private final class Helper implements Runnable {
        final int index;
        final Thread thread;
        private volatile long started;   // the generation handed to this helper
        private long done;

        Helper(int index) {
            this.index = index;
            this.thread = new Thread(this, "argus-cpu-loop-" + index);
            thread.setDaemon(true);
        }

        void start(long gen) {
            started = gen;   // a volatile write after the loop's fields: a helper that sees it sees them
            LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            while (!closed) {
                long gen = started;
                if (gen == done) {
                    LockSupport.park(this);
                    continue;
                }
                done = gen;
                int total = count;
                int n = parts;
                try {
                    body.run(index, boundary(total, n, index), boundary(total, n, index + 1));
                } catch (Throwable t) {
                    failure = t;
                }
                if (pending.decrementAndGet() == 0) LockSupport.unpark(caller);
            }
        }
    }

}
