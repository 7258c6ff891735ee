package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The training batches of a {@link DetectionBatches}, made ahead on {@code threads} loader threads so the training
 * thread finds the next batch ready: batches k+1..k+depth are in the making while the trainer works on batch k.
 *
 * <p>The unit of work is one image of one batch, not a whole batch: the threads share the earliest batch first, so
 * the batch needed next is ready soonest, and the threads are all busy with only {@code depth} batches in memory
 * (at batch 64 and 416x416 one batch is 133 MB; a batch per thread would need sixteen on a 16-core host). Each image
 * is drawn with its own random stream, split in order from (seed, k) as the synchronous source splits them, into its
 * own place in the batch: the batches are bit-identical to {@link DetectionBatches#next}'s, whatever the threads,
 * depth and timing.
 *
 * <p>The arrays of a batch are reused for a later batch once the batch after it has been asked for (as
 * {@link BatchSource} allows): no batch-sized allocation, and no zeroing of 133 MB per batch, after the first ones.
 * Every image writes every float of its place, so a reused array holds nothing of its past. With an input size that
 * changes with the iteration (multi-scale training) every array is made for the largest, and a batch at a smaller size
 * uses its beginning.
 *
 * <p>An image that fails (a corrupt file) fails its batch: the training thread gets the error, naming the image,
 * when it asks for that batch, in the order the synchronous source would have failed. {@link #close} stops the
 * threads and waits for them (an image in the making is finished first: tens of milliseconds).
 */
public final class PrefetchingBatches implements BatchSource {
    /** Default batches made ahead: enough to absorb a slow image or a GC pause, few enough for memory. */
    public static final int DEFAULT_DEPTH = 3;

    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final long JOIN_MILLIS = 10_000;

    /** A batch in the making: its images are claimed by loader threads one at a time, earliest batch first. */
    private static final class Slot {
        final long batch;
        final InputSizes.Size size;
        final float[] images;
        final SplittableRandom[] randoms;
        final List<Truth>[] truths;
        int claimed;                // images handed to a thread
        int done;                   // images finished (or failed)
        RuntimeException failure;   // the first image that failed

        @SuppressWarnings("unchecked")
        Slot(long batch, InputSizes.Size size, float[] images, SplittableRandom[] randoms) {
            this.batch = batch;
            this.size = size;
            this.images = images;
            this.randoms = randoms;
            this.truths = new List[randoms.length];
        }
    }

    private final DetectionBatches batches;
    private final int depth;
    private final Thread[] threads;
    private final String threadPrefix;
    private final Object lock = new Object();
    // guarded by lock
    private final ArrayDeque<Slot> window = new ArrayDeque<>();      // the next `depth` batches, earliest first
    private final ArrayDeque<float[]> spare = new ArrayDeque<>();
    private long nextToOpen;
    private float[] handedOutArray;                                    // the batch the caller has now
    private boolean closed;
    // the caller's thread only
    private long waitNanos;
    private long handedOut;

    /**
     * @param threads loader threads (at least 1; {@link #defaultThreads} leaves the trainer its processors)
     * @param depth   batches made ahead of the one the caller has (at least 1; memory: depth + 1 batches)
     */
    public PrefetchingBatches(DetectionBatches batches, int threads, int depth) {
        if (threads < 1) throw new IllegalArgumentException("loader threads: expected >= 1, found " + threads);
        if (depth < 1) throw new IllegalArgumentException("loader depth: expected >= 1 batch ahead, found " + depth);
        this.batches = batches;
        this.depth = depth;
        this.nextToOpen = batches.nextBatch();
        synchronized (lock) {
            for (int i = 0; i < depth; i++) window.addLast(open());
            spare.addLast(new float[batches.images() * batches.imageFloats()]); // for the batch the first next() opens
        }
        this.threadPrefix = "argus-loader-" + INSTANCES.incrementAndGet() + "-";
        this.threads = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(this::load, threadPrefix + (t + 1));
            thread.setDaemon(true); // a trainer that dies without closing must not keep the JVM alive
            this.threads[t] = thread;
            thread.start();
        }
    }

    /**
     * Loader threads that leave the trainer its own: the processors minus {@code trainingThreads} (the CPU backend's
     * workers; 1 for a GPU's feeding thread), at least one.
     */
    public static int defaultThreads(int trainingThreads) {
        return Math.max(1, Runtime.getRuntime().availableProcessors() - trainingThreads);
    }

    public int threads() { return threads.length; }

    public int depth() { return depth; }

    /** The prefix of this loader's thread names (tests check that none is left after close). */
    String threadPrefix() { return threadPrefix; }

    /** Opens the next batch's slot, on a spare array (allocated only while the first batches open). Under the lock. */
    private Slot open() {
        float[] images = spare.poll();
        if (images == null) images = new float[batches.images() * batches.imageFloats()];
        long k = nextToOpen++;
        return new Slot(k, batches.size(k), images, batches.imageRandoms(k));
    }

    /** A loader thread: claims the earliest unclaimed image, draws it, until closed. */
    private void load() {
        while (true) {
            Slot slot = null;
            int image;
            synchronized (lock) {
                while (!closed && (slot = earliestUnclaimed()) == null) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        // not ours to act on: only close() ends a loader thread (ending here would starve the trainer)
                    }
                }
                if (closed) return;
                image = slot.claimed++;
            }
            List<Truth> truths = null;
            RuntimeException failure = null;
            try {
                truths = batches.draw(slot.batch, image, slot.randoms[image], slot.images);
            } catch (RuntimeException e) {
                failure = e;
            } catch (Error e) {
                failure = new IllegalStateException("loader thread " + Thread.currentThread().getName() + ": " + e
                        + " (training batch " + slot.batch + ", image " + image + ")", e);
            }
            synchronized (lock) {
                slot.truths[image] = truths;
                if (failure != null && slot.failure == null) slot.failure = failure;
                if (++slot.done == slot.truths.length) lock.notifyAll();
            }
        }
    }

    private Slot earliestUnclaimed() {
        for (Slot s : window) if (s.claimed < s.truths.length) return s;
        return null;
    }

    @Override
    public TrainingBatch next() {
        long start = System.nanoTime();
        Slot slot;
        synchronized (lock) {
            if (closed) throw new IllegalStateException("the training-data loader is closed");
            if (handedOutArray != null) spare.addLast(handedOutArray);   // the caller is done with it
            handedOutArray = null;
            slot = window.peekFirst();
            while (slot.done < slot.truths.length) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for training batch " + slot.batch, e);
                }
                if (closed) throw new IllegalStateException("the training-data loader was closed while waiting");
            }
            window.removeFirst();
            window.addLast(open());
            lock.notifyAll();
            handedOutArray = slot.images;
        }
        waitNanos += System.nanoTime() - start;
        handedOut++;
        if (slot.failure != null) {
            // Thrown anew on the training thread (its stack), the loader thread's failure as the cause.
            throw new IllegalArgumentException(slot.failure.getMessage(), slot.failure);
        }
        return new TrainingBatch(slot.images, Arrays.asList(slot.truths), slot.truths.length, slot.size.width(),
                slot.size.height());
    }

    @Override
    public long waitNanos() { return waitNanos; }

    @Override
    public long handedOut() { return handedOut; }

    /** Stops the loader threads and waits for them to end. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) return;
            closed = true;
            lock.notifyAll();
        }
        long deadline = System.nanoTime() + JOIN_MILLIS * 1_000_000;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        synchronized (lock) {
            window.clear();
            spare.clear();
            handedOutArray = null;
        }
    }
}
