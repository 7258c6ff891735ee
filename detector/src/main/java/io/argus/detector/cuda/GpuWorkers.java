package io.argus.detector.cuda;

import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.nn.InferenceBackend;
import io.argus.detector.nn.StageTimes;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudaRuntime;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Several GPUs on one host: one inference worker per device, each a thread that owns its backend (and with it the
 * device's CUDA context, stream and buffers). Works for any backend factory (CPU backends stand in for GPUs in tests).
 *
 * <p><b>Where a batch goes.</b> To the worker expected to finish it first: (images queued or running there + the
 * batch's) x that worker's measured milliseconds per image (a moving average over its batches, 0 before its first, so
 * a fresh worker gets work at once); ties go to the one with fewer images waiting, then take turns. On equal GPUs
 * this is the worker with the fewest images waiting; a slower GPU, or one shared with a fine-tune, gets
 * proportionally fewer. An idle worker passed over {@link #PROBE_AFTER_SKIPS} times in a row gets the next batch, so
 * an estimate made during warm-up (or while a fine-tune shared the GPU) is measured again rather than kept. A batch whose pictures live on one GPU (NVDEC surfaces) is pinned to that GPU's worker
 * ({@link #submit(List, DetectParams, int)}): no other device can read them.
 *
 * <p><b>A GPU that fails.</b> When a worker's detect throws a {@link CudaException} (an error on its stream, a lost
 * device) the worker is taken out: it receives no more batches, the failed batch and those queued behind it go to the
 * remaining workers as if newly submitted (a pinned batch cannot move and fails), the worker's thread closes its
 * backend and ends, and a {@link Removal} is logged and given to the {@link #onRemoval listener}. When no worker
 * remains, every batch fails with an error naming the device and the cause that took the last one out. Any other
 * exception (a picture the backend cannot read) fails that batch only.
 */
public final class GpuWorkers implements AutoCloseable {
    /** {@link #submit(List, DetectParams, int)}: the batch may run on any worker. */
    public static final int ANY_DEVICE = -1;

    /** Weight of the newest batch in a worker's moving average of milliseconds per image. */
    private static final double MS_PER_IMAGE_SMOOTHING = 0.2;

    /**
     * An idle worker passed over this many batches in a row gets the next one: its estimate may be stale. A worker's
     * first batches build its plans, primitives and graphs and can take ten times a steady one; without a fresh
     * measurement that one slow average would keep an idle GPU idle for good (a stand-in GPU got 2 of 800 batches so).
     */
    static final int PROBE_AFTER_SKIPS = 16;

    /**
     * A finished batch: detections per picture (in order), the device that ran it, that device's stage times (null
     * where the backend does not time them, or the batch ran as several calls) and the wall time of the detect call.
     */
    public record Done(List<List<Detection>> detections, int device, StageTimes stages, long nanos) {}

    /**
     * A worker taken out: its device, the error, the batches handed to other workers and those that failed with it
     * (pinned to it, or no worker left), and how many workers remain.
     */
    public record Removal(int device, RuntimeException cause, int batchesMoved, int batchesFailed, int workersLeft) {
        public String describe() {
            return "GPU worker on device " + device + " taken out after " + cause.getMessage() + "; " + batchesMoved
                    + " of its batches moved to the other workers, " + batchesFailed + " failed; " + workersLeft
                    + " worker" + (workersLeft == 1 ? "" : "s") + " left";
        }
    }

    private record Task(List<Picture> pictures, DetectParams params, int device, CompletableFuture<Done> result) {}

    private static final Task STOP = new Task(List.of(), DetectParams.DEFAULT, ANY_DEVICE, null);
    private static final System.Logger LOG = System.getLogger("argus.inference.gpus");

    private final List<Worker> workers = new ArrayList<>();
    private final IntFunction<InferenceBackend> factory;
    private volatile Consumer<Removal> onRemoval = r -> { };
    // guarded by this: which worker takes what, and the state of each
    private int turn;
    private boolean closed;
    private RuntimeException lastRemovalCause;
    private final List<Removal> removals = new ArrayList<>();

    private final class Worker implements Runnable {
        final int device;
        final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();   // batches are added under GpuWorkers' lock
        final AtomicInteger batches = new AtomicInteger();
        final AtomicLong images = new AtomicLong();
        final CountDownLatch ready = new CountDownLatch(1);
        final Thread thread;
        volatile RuntimeException failedToOpen;
        // guarded by GpuWorkers.this
        int waitingImages;        // queued or running
        double msPerImage;        // moving average; 0 until the first batch
        int skippedWhileIdle;     // batches routed elsewhere in a row while this one had nothing to do
        boolean accepting = true; // false once taken out or stopped
        // the worker thread's own
        InferenceBackend backend;
        boolean stopping;

        Worker(int device) {
            this.device = device;
            this.thread = new Thread(this, "argus-inference-gpu" + device);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                backend = factory.apply(device);
            } catch (RuntimeException e) {
                failedToOpen = e;
                return;
            } finally {
                ready.countDown();
            }
            try {
                Task t;
                while ((t = next()) != null) {
                    long t0 = System.nanoTime();
                    List<List<Detection>> found;
                    try {
                        found = detect(t);
                    } catch (CudaException e) {
                        takeOut(this, t, e);
                        return;
                    } catch (Error e) {   // the thread ends: nothing may wait on it
                        takeOut(this, t, new IllegalStateException(e.toString(), e));
                        throw e;
                    } catch (RuntimeException e) {
                        finished(this, t, System.nanoTime() - t0);
                        t.result.completeExceptionally(e);
                        continue;
                    }
                    long nanos = System.nanoTime() - t0;
                    StageTimes stages = t.pictures.size() <= backend.maxBatch() ? backend.lastStageTimes() : null;
                    finished(this, t, nanos);
                    t.result.complete(new Done(found, device, stages, nanos));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeBackend();
            }
        }

        /** The next batch; null once stopped and nothing is left here (then this worker accepts no more). */
        private Task next() throws InterruptedException {
            if (!stopping) {
                Task t = queue.take();
                if (t != STOP) return t;
                stopping = true;
            }
            synchronized (GpuWorkers.this) {
                Task t = queue.poll();   // a batch moved here from a failed worker after the stop
                if (t == null) accepting = false;
                return t;
            }
        }

        private List<List<Detection>> detect(Task t) {
            int max = backend.maxBatch();
            if (t.pictures.size() <= max) {
                // the batch queued behind this one, if any: the backend may move its frames while this one computes
                Task upcoming = queue.peek();
                List<Picture> next = upcoming != null && upcoming != STOP ? upcoming.pictures : null;
                return backend.detect(t.pictures, t.params, next);
            }
            List<List<Detection>> out = new ArrayList<>(t.pictures.size());
            for (int i = 0; i < t.pictures.size(); i += max) {
                out.addAll(backend.detect(t.pictures.subList(i, Math.min(t.pictures.size(), i + max)), t.params));
            }
            return out;
        }

        private void closeBackend() {
            try {
                backend.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing the backend of device " + device + " failed: " + e.getMessage());
            }
        }
    }

    /** {@code count} workers on devices 0..count-1; each backend comes from {@code factory.apply(device)}. */
    public GpuWorkers(int count, IntFunction<InferenceBackend> factory) {
        this(range(count), factory);
    }

    /**
     * One worker per listed device; worker i's backend comes from {@code factory.apply(devices[i])}, called on that
     * worker's thread (all open at once). A backend that fails to open closes the others and is thrown.
     */
    public GpuWorkers(int[] devices, IntFunction<InferenceBackend> factory) {
        if (devices.length == 0) throw new IllegalArgumentException("need at least one worker, got none");
        if (Arrays.stream(devices).distinct().count() != devices.length) {
            throw new IllegalArgumentException("devices listed twice: " + Arrays.toString(devices));
        }
        this.factory = factory;
        for (int d : devices) workers.add(new Worker(d));
        for (Worker w : workers) w.thread.start();
        try {
            for (Worker w : workers) {
                w.ready.await();
                if (w.failedToOpen != null) {
                    close();
                    throw w.failedToOpen;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting inference workers", e);
        }
    }

    /** One CUDA worker per listed device (all devices when {@code devices} is empty). */
    public static GpuWorkers cuda(Model model, int maxBatch, CudaOptions options, int... devices) {
        CudaRuntime.require();
        int[] ids = devices.length > 0 ? devices : range(CudaRuntime.deviceCount());
        return new GpuWorkers(ids, d -> CudaBackend.open(model, maxBatch, options.withDevice(d)));
    }

    private static int[] range(int n) {
        int[] r = new int[Math.max(0, n)];
        for (int i = 0; i < r.length; i++) r[i] = i;
        return r;
    }

    /**
     * Told (on the failing worker's thread) each time a worker is taken out, right after its batches were handed to
     * the others (which may finish some first); {@link #removals()} has it before any of them completes.
     */
    public GpuWorkers onRemoval(Consumer<Removal> listener) {
        this.onRemoval = listener != null ? listener : r -> { };
        return this;
    }

    /** Workers started, taken out ones included. */
    public int size() { return workers.size(); }

    /** The devices of the workers that still take batches, in the order given. */
    public synchronized int[] liveDevices() {
        return workers.stream().filter(w -> w.accepting).mapToInt(w -> w.device).toArray();
    }

    /** The devices of all workers, in the order given (the index of {@link #completedBatches()}). */
    public int[] devices() {
        return workers.stream().mapToInt(w -> w.device).toArray();
    }

    /** The workers taken out so far, oldest first. */
    public synchronized List<Removal> removals() { return List.copyOf(removals); }

    /** Queues a batch on the worker expected to finish it first; see {@link #submit(List, DetectParams, int)}. */
    public CompletableFuture<Done> submit(List<? extends Picture> pictures, DetectParams params) {
        return submit(pictures, params, ANY_DEVICE);
    }

    /**
     * Queues a batch: on {@code device}'s worker ({@link #ANY_DEVICE}: the worker expected to finish it first). The
     * future completes with one list of detections per picture, or fails (the detect failed, the device was taken
     * out, no worker is left, or these workers are closed).
     */
    public CompletableFuture<Done> submit(List<? extends Picture> pictures, DetectParams params, int device) {
        if (device != ANY_DEVICE && workers.stream().noneMatch(w -> w.device == device)) {
            throw new IllegalArgumentException("no worker on device " + device + " (devices "
                    + Arrays.toString(devices()) + ")");
        }
        Task t = new Task(List.copyOf(pictures), params, device, new CompletableFuture<>());
        RuntimeException refused;
        synchronized (this) {
            refused = closed ? new IllegalStateException("the GPU workers are closed") : route(t);
        }
        if (refused != null) t.result.completeExceptionally(refused);
        return t.result;
    }

    /** Under the lock: queues {@code t} on the best worker that may take it, or says why none can. */
    private RuntimeException route(Task t) {
        Worker best = null;
        double bestCost = 0;
        int start = Math.floorMod(turn++, workers.size());
        for (int k = 0; k < workers.size(); k++) {
            Worker w = workers.get((start + k) % workers.size());
            if (!w.accepting || (t.device != ANY_DEVICE && w.device != t.device)) continue;
            double cost = (w.waitingImages + t.pictures.size()) * w.msPerImage;
            if (best == null || cost < bestCost || (cost == bestCost && w.waitingImages < best.waitingImages)) {
                best = w;
                bestCost = cost;
            }
        }
        if (best == null) return noWorkerFor(t);
        for (Worker w : workers) {
            if (w == best || !w.accepting || w.waitingImages > 0 || (t.device != ANY_DEVICE && w.device != t.device)) continue;
            if (++w.skippedWhileIdle >= PROBE_AFTER_SKIPS) best = w;   // measure it again
        }
        best.skippedWhileIdle = 0;
        best.waitingImages += t.pictures.size();
        best.queue.add(t);
        return null;
    }

    private RuntimeException noWorkerFor(Task t) {
        if (t.device != ANY_DEVICE) {
            return new IllegalStateException("device " + t.device + " was taken out"
                    + (lastRemovalCause != null ? " after " + lastRemovalCause.getMessage() : "")
                    + "; its pictures live there and cannot move");
        }
        if (lastRemovalCause != null) {
            return new IllegalStateException("no GPU worker left: the last was taken out after "
                    + lastRemovalCause.getMessage(), lastRemovalCause);
        }
        return new IllegalStateException("the GPU workers are stopping");
    }

    /** A batch ran (or failed without taking its worker out): its images leave the load; ms per image updates. */
    private synchronized void finished(Worker w, Task t, long nanos) {
        int n = t.pictures.size();
        w.waitingImages -= n;
        double ms = nanos / 1e6 / Math.max(1, n);
        w.msPerImage = w.msPerImage == 0 ? ms : w.msPerImage + MS_PER_IMAGE_SMOOTHING * (ms - w.msPerImage);
        w.batches.incrementAndGet();
        w.images.addAndGet(n);
    }

    /** On {@code w}'s thread: {@code failed} threw {@code cause}; {@code w} takes nothing more, its batches move. */
    private void takeOut(Worker w, Task failed, RuntimeException cause) {
        List<Task> orphans = new ArrayList<>();
        orphans.add(failed);
        List<Task> lost = new ArrayList<>();
        List<RuntimeException> why = new ArrayList<>();
        Removal removal;
        synchronized (this) {
            w.accepting = false;
            w.waitingImages = 0;
            lastRemovalCause = cause;
            for (Task t; (t = w.queue.poll()) != null; ) if (t != STOP) orphans.add(t);
            int moved = 0;
            for (Task t : orphans) {
                RuntimeException refused = t.device == ANY_DEVICE ? route(t) : noWorkerFor(t);
                if (refused == null) {
                    moved++;
                } else {
                    lost.add(t);
                    why.add(refused);
                }
            }
            int left = (int) workers.stream().filter(x -> x.accepting).count();
            removal = new Removal(w.device, cause, moved, lost.size(), left);
            removals.add(removal);
        }
        LOG.log(Level.ERROR, removal.describe());
        for (int i = 0; i < lost.size(); i++) lost.get(i).result.completeExceptionally(why.get(i));
        try {
            onRemoval.accept(removal);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the removal listener failed: " + e);
        }
    }

    /** Batches each worker has finished, failed ones included (for tests and metrics; index as {@link #devices()}). */
    public int[] completedBatches() {
        int[] out = new int[workers.size()];
        for (int i = 0; i < out.length; i++) out[i] = workers.get(i).batches.get();
        return out;
    }

    /** Images each worker has finished, failed batches included (for benchmarks and metrics). */
    public long[] completedImages() {
        long[] out = new long[workers.size()];
        for (int i = 0; i < out.length; i++) out[i] = workers.get(i).images.get();
        return out;
    }

    /** Measured milliseconds per image of each worker (moving average; 0 before its first batch). */
    public synchronized double[] msPerImage() {
        return workers.stream().mapToDouble(w -> w.msPerImage).toArray();
    }

    /**
     * Stops taking batches; the workers finish what they hold (batches moved to them meanwhile included), close their
     * backends and end. Returns once they have (at most a minute each).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        for (Worker w : workers) w.queue.add(STOP);
        for (Worker w : workers) {
            try {
                w.thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
