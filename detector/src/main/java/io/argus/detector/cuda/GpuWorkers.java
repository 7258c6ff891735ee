package io.argus.detector.cuda;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.nn.InferenceBackend;
import io.argus.gpu.CudaRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Several GPUs on one host: one inference worker per device, each a thread that owns its backend (and with it the
 * device's CUDA context, stream and buffers). Batches go to the worker with the fewest images queued or running,
 * ties taking turns, so frames spread by load. Works for any backend factory (the CPU in tests without a GPU).
 */
public final class GpuWorkers implements AutoCloseable {
    private record Task(List<BgrImage> images, DetectParams params, CompletableFuture<List<List<Detection>>> result) {}

    private static final Task STOP = new Task(List.of(), DetectParams.DEFAULT, null);

    private final List<Worker> workers = new ArrayList<>();
    private final AtomicInteger turn = new AtomicInteger();

    private final class Worker implements Runnable {
        final int index;
        final BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
        final AtomicInteger load = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();
        final IntFunction<InferenceBackend> factory;
        final CountDownLatch ready = new CountDownLatch(1);
        volatile RuntimeException failed;
        volatile InferenceBackend backend;
        final Thread thread;

        Worker(int index, IntFunction<InferenceBackend> factory) {
            this.index = index;
            this.factory = factory;
            this.thread = new Thread(this, "argus-inference-" + index);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                backend = factory.apply(index);
            } catch (RuntimeException e) {
                failed = e;
                return;
            } finally {
                ready.countDown();
            }
            try {
                while (true) {
                    Task t = queue.take();
                    if (t == STOP) break;
                    List<List<Detection>> found = null;
                    RuntimeException error = null;
                    try {
                        found = detect(t);
                    } catch (RuntimeException e) {
                        error = e;
                    }
                    load.addAndGet(-t.images.size());
                    batches.incrementAndGet();
                    if (error != null) t.result.completeExceptionally(error);
                    else t.result.complete(found);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                backend.close();
            }
        }

        private List<List<Detection>> detect(Task t) {
            int max = backend.maxBatch();
            if (t.images.size() <= max) return backend.detect(t.images, t.params);
            List<List<Detection>> out = new ArrayList<>(t.images.size());
            for (int i = 0; i < t.images.size(); i += max) {
                out.addAll(backend.detect(t.images.subList(i, Math.min(t.images.size(), i + max)), t.params));
            }
            return out;
        }
    }

    /** {@code count} workers; worker i's backend comes from {@code factory.apply(i)}, called on that worker's thread. */
    public GpuWorkers(int count, IntFunction<InferenceBackend> factory) {
        if (count <= 0) throw new IllegalArgumentException("need at least one worker, got " + count);
        for (int i = 0; i < count; i++) workers.add(new Worker(i, factory));
        for (Worker w : workers) w.thread.start();
        try {
            for (Worker w : workers) {
                w.ready.await();
                if (w.failed != null) {
                    close();
                    throw w.failed;
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
        return new GpuWorkers(ids.length, i -> CudaBackend.open(model, maxBatch, options.withDevice(ids[i])));
    }

    private static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = i;
        return r;
    }

    public int size() { return workers.size(); }

    /** Queues a batch on the least loaded worker; the future completes with one list of detections per image. */
    public CompletableFuture<List<List<Detection>>> submit(List<BgrImage> images, DetectParams params) {
        CompletableFuture<List<List<Detection>>> result = new CompletableFuture<>();
        Worker best = null;
        int start = Math.floorMod(turn.getAndIncrement(), workers.size());
        for (int k = 0; k < workers.size(); k++) {
            Worker w = workers.get((start + k) % workers.size());
            if (best == null || w.load.get() < best.load.get()) best = w;
        }
        best.load.addAndGet(images.size());
        best.queue.add(new Task(List.copyOf(images), params, result));
        return result;
    }

    /** Batches each worker has finished (for tests and metrics). */
    public int[] completedBatches() {
        int[] out = new int[workers.size()];
        for (int i = 0; i < out.length; i++) out[i] = workers.get(i).batches.get();
        return out;
    }

    @Override
    public void close() {
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
