package io.argus.trainer.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One thread per rank of a data-parallel run, each keeping its rank's work for the whole run (a GPU rank's backend
 * is opened on its thread and the device stays current there). The driver gives every rank its part of a step and
 * waits for all of them ({@link #onEach}). A single rank runs on the caller's thread: training alone is unchanged.
 *
 * <p>When a rank fails, the others may be waiting for it inside a collective, forever: {@code abort} (NCCL's
 * communicators aborted, or the host all-reduce's barrier broken) runs as soon as the first failure is seen, and
 * that failure is what {@link #onEach} throws.
 */
public final class RankThreads implements AutoCloseable {
    /** A rank's part of a step. */
    @FunctionalInterface
    public interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    private final int ranks;
    private final List<ExecutorService> threads = new ArrayList<>();
    private final Runnable abort;
    private boolean aborted;

    /** {@code name}: the threads' name prefix; {@code abort}: what releases ranks waiting for a failed one. */
    public RankThreads(int ranks, String name, Runnable abort) {
        if (ranks <= 0) throw new IllegalArgumentException("ranks: expected > 0, found " + ranks);
        this.ranks = ranks;
        this.abort = abort;
        if (ranks > 1) {
            for (int r = 0; r < ranks; r++) {
                String threadName = name + "-rank-" + r;
                threads.add(Executors.newSingleThreadExecutor(job -> {
                    Thread t = new Thread(job, threadName);
                    t.setDaemon(true);
                    return t;
                }));
            }
        }
    }

    public int ranks() { return ranks; }

    /** Runs {@code task} on every rank's thread at once and returns the results in rank order. */
    public <T> List<T> onEach(RankTask<T> task) {
        if (ranks == 1) {
            try {
                return java.util.Collections.singletonList(task.run(0));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("rank 0: " + e.getMessage(), e);
            }
        }
        BlockingQueue<Integer> finished = new LinkedBlockingQueue<>();
        List<CompletableFuture<T>> futures = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            int rank = r;
            CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> call(task, rank), threads.get(rank));
            futures.add(f);   // the task's own future: complete before its whenComplete action runs
            f.whenComplete((value, error) -> finished.add(rank));
        }
        Throwable first = null;
        int firstRank = -1;
        for (int k = 0; k < ranks; k++) {
            int rank;
            try {
                rank = finished.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abortOnce();
                throw new IllegalStateException("interrupted while the ranks ran", e);
            }
            CompletableFuture<T> f = futures.get(rank);
            if (f.isCompletedExceptionally() && first == null) {
                first = f.exceptionNow();
                if (first instanceof CompletionException && first.getCause() != null) first = first.getCause();
                firstRank = rank;
                abortOnce();   // ranks waiting in a collective for this one would wait forever
            }
        }
        if (first != null) {
            if (first instanceof RankFailure rf) first = rf.getCause();
            if (first instanceof RuntimeException re) {
                re.addSuppressed(new IllegalStateException("rank " + firstRank + " of " + ranks + " failed first"));
                throw re;
            }
            throw new IllegalStateException("rank " + firstRank + ": " + first.getMessage(), first);
        }
        List<T> results = new ArrayList<>(ranks);
        for (CompletableFuture<T> f : futures) results.add(f.resultNow());
        return results;
    }

    private static <T> T call(RankTask<T> task, int rank) {
        try {
            return task.run(rank);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RankFailure(e);
        }
    }

    /** A checked exception of a rank's task, carried out of the supplier. */
    private static final class RankFailure extends RuntimeException {
        RankFailure(Exception cause) { super(cause); }
    }

    private void abortOnce() {
        if (aborted) return;
        aborted = true;
        if (abort != null) abort.run();
    }

    /** Whether a failure aborted the ranks' collectives (the run cannot go on). */
    public boolean aborted() { return aborted; }

    @Override
    public void close() {
        for (ExecutorService t : threads) t.shutdown();
        for (ExecutorService t : threads) {
            try {
                t.awaitTermination(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
