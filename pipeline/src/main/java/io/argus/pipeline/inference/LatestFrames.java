package io.argus.pipeline.inference;

import io.argus.pipeline.frames.VideoFrame;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The batcher's queue: at most one waiting frame per camera (latest frame wins: a newer frame replaces the waiting
 * one, which is released and counted as superseded). The inference worker takes batches of up to {@code maxBatch}
 * frames, oldest first, once enough cameras have a frame or {@code maxWaitMs} after the oldest arrived.
 * A slow detector therefore drops frames and never adds queueing latency.
 *
 * <p>{@link #offer} is called on an event loop and only holds the lock for a map update; {@link #takeBatch} blocks
 * the inference thread.
 */
public final class LatestFrames {
    /** A camera counts as active for batching while its last frame is younger than this. */
    private static final long ACTIVE_NANOS = 2_000_000_000L;

    private final int maxBatch;
    private final long maxWaitNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final LinkedHashMap<String, Waiting> waiting = new LinkedHashMap<>();
    private final Map<String, Long> lastSeen = new LinkedHashMap<>();
    private boolean closed;
    private boolean woken;

    private record Waiting(VideoFrame frame, long arrivedNanos) {}

    /** A batch and when its frames arrived here ({@code arrivedNanos[i]} for {@code frames.get(i)}). */
    public record Batch(List<VideoFrame> frames, long[] arrivedNanos, long takenNanos) {}

    public LatestFrames(int maxBatch, long maxWaitMs) {
        this.maxBatch = maxBatch;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
    }

    /** Queues a frame, superseding the camera's waiting one. After {@link #close()} the frame is released. */
    public void offer(VideoFrame frame) {
        long now = System.nanoTime();
        VideoFrame old = null;
        boolean rejected;
        lock.lock();
        try {
            rejected = closed;
            if (!rejected) {
                Waiting w = waiting.remove(frame.cameraId());
                if (w != null) old = w.frame();
                waiting.put(frame.cameraId(), new Waiting(frame, now)); // re-inserted last: arrival order
                lastSeen.put(frame.cameraId(), now);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (old != null) old.supersede();
        if (rejected) frame.release();
    }

    /**
     * Blocks until a batch is ready: {@code min(maxBatch, active cameras)} frames waiting, or {@code maxWaitMs} after
     * the oldest arrived. Returns null once closed, and an empty batch when {@link #wake() woken} while no frame
     * waits.
     */
    public Batch takeBatch() throws InterruptedException {
        Batch batch = takeWaiting();
        if (batch != null) batch.frames().forEach(VideoFrame::taken);   // outside the lock: a camera may wake on it
        return batch;
    }

    private Batch takeWaiting() throws InterruptedException {
        lock.lock();
        try {
            while (!closed && waiting.isEmpty() && !woken) changed.await();
            if (closed) return null;
            woken = false;
            if (waiting.isEmpty()) return new Batch(List.of(), new long[0], System.nanoTime());
            long deadline = waiting.values().iterator().next().arrivedNanos() + maxWaitNanos;
            while (!closed && waiting.size() < target(System.nanoTime())) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                changed.awaitNanos(left);
            }
            if (closed) return null;
            int n = Math.min(maxBatch, waiting.size());
            List<VideoFrame> frames = new ArrayList<>(n);
            long[] arrived = new long[n];
            Iterator<Waiting> it = waiting.values().iterator();
            for (int i = 0; i < n; i++) {
                Waiting w = it.next();
                frames.add(w.frame());
                arrived[i] = w.arrivedNanos();
                it.remove();
            }
            return new Batch(frames, arrived, System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    /** How many frames make a full batch now: no point waiting for cameras that are not sending. */
    private int target(long now) {
        lastSeen.values().removeIf(t -> now - t > ACTIVE_NANOS);
        return Math.max(1, Math.min(maxBatch, lastSeen.size()));
    }

    /**
     * Lets a worker waiting for frames return (with an empty batch) to do something between batches, e.g. switch
     * models while no camera sends. A worker busy with a batch sees it at its next {@link #takeBatch}.
     */
    public void wake() {
        lock.lock();
        try {
            woken = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public int depth() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the worker with null and releases every waiting frame. */
    public void close() {
        List<VideoFrame> left = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            for (Waiting w : waiting.values()) left.add(w.frame());
            waiting.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (VideoFrame f : left) f.release();
    }
}
