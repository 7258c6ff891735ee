package io.argus.pipeline.inference;

import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Picture;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.nn.StageTimes;
import io.argus.pipeline.frames.VideoFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A model's batches on several GPUs, each camera's frames still published in order. The inference thread takes a
 * batch from {@link LatestFrames} only when a GPU is free (at most one batch being detected per live GPU, so frames
 * wait in the batcher, where a newer frame of the same camera replaces them, rather than in a GPU's queue; and at most
 * two per GPU not yet published, so a slow publisher holds the batcher back rather than piling up), splits it by where
 * its frames live (host frames go to the GPU expected to finish first, an NVDEC frame to the GPU that decoded it) and
 * hands the parts to {@link GpuWorkers}. One publisher thread takes the batches in the order they were taken, waits
 * for their parts and publishes them: a camera's frame k is always published, and tracked, before its frame k+1,
 * whichever GPU ran which. Frames of a part that failed (its GPU was taken out and the frames could not move, or the
 * last GPU failed) are released unpublished and counted as failures.
 */
final class SeveralGpuDispatch {
    /** What the publisher does with a batch whose parts are done. */
    interface Publisher {
        /** {@code frames[i]} found {@code found[i]}; one batch at a time, in the order the batches were taken. */
        void publish(LoadedModel model, List<VideoFrame> frames, List<List<Detection>> found, long startNanos,
                     long endNanos, StageTimes stages, int batchSize);

        /** {@code frames} could not be detected: they are released after this, unpublished. */
        void failed(List<VideoFrame> frames, Throwable cause);
    }

    /** Frames of one batch that run together: on one GPU, or on any (host frames). */
    private record Part(int[] frameIndexes, CompletableFuture<GpuWorkers.Done> result) {}

    /** A batch taken from the batcher, its parts submitted. */
    private record InFlight(LoadedModel model, List<VideoFrame> frames, List<Part> parts, long startNanos) {}

    private static final InFlight END = new InFlight(null, List.of(), List.of(), 0);

    private final Publisher publisher;
    private final BlockingQueue<InFlight> ordered = new LinkedBlockingQueue<>();
    private final Thread thread;
    // guarded by this
    private int detecting;     // batches taken whose parts are not all done
    private int unpublished;   // batches taken and not yet published

    SeveralGpuDispatch(String model, Publisher publisher) {
        this.publisher = publisher;
        this.thread = new Thread(this::publishInOrder, "argus-publish-" + model);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Blocks until another batch may be taken: fewer than {@code gpus} being detected and fewer than twice that not
     * yet published (one batch may always be taken, so with no GPU left batches still come and fail).
     */
    synchronized void awaitRoom(int gpus) throws InterruptedException {
        int limit = Math.max(1, gpus);
        while (detecting >= limit || unpublished >= 2 * limit) wait();
    }

    /** Blocks until every batch taken has been published. */
    synchronized void awaitIdle() throws InterruptedException {
        while (unpublished > 0) wait();
    }

    private synchronized void detected() {
        detecting--;
        notifyAll();
    }

    private synchronized void published() {
        unpublished--;
        notifyAll();
    }

    /** Splits {@code frames} by the GPU they live on and submits each part; the publisher takes it from here. */
    void submit(GpuWorkers workers, LoadedModel model, List<VideoFrame> frames, DetectParams params) {
        synchronized (this) {
            detecting++;
            unpublished++;
        }
        Map<Integer, List<Integer>> byDevice = new LinkedHashMap<>();
        for (int i = 0; i < frames.size(); i++) {
            VideoFrame f = frames.get(i);
            byDevice.computeIfAbsent(f.onGpu() ? f.device() : GpuWorkers.ANY_DEVICE, d -> new ArrayList<>()).add(i);
        }
        long start = System.nanoTime();
        List<Part> parts = new ArrayList<>(byDevice.size());
        for (Map.Entry<Integer, List<Integer>> e : byDevice.entrySet()) {
            int[] indexes = e.getValue().stream().mapToInt(Integer::intValue).toArray();
            List<Picture> pictures = Arrays.stream(indexes).mapToObj(i -> frames.get(i).picture()).toList();
            CompletableFuture<GpuWorkers.Done> result;
            try {
                result = workers.submit(pictures, params, e.getKey());
            } catch (IllegalArgumentException notHere) {   // an NVDEC frame on a GPU this model does not run on
                result = CompletableFuture.failedFuture(new IllegalStateException("frames decoded on GPU " + e.getKey()
                        + ", which this model does not run on (devices " + Arrays.toString(workers.devices()) + ")"));
            }
            parts.add(new Part(indexes, result));
        }
        CompletableFuture.allOf(parts.stream().map(Part::result).toArray(CompletableFuture[]::new))
                .whenComplete((done, failed) -> detected());
        ordered.add(new InFlight(model, frames, parts, start));
    }

    /** Publishes what is in flight, then ends the publisher thread. */
    void close() throws InterruptedException {
        ordered.add(END);
        thread.join(30_000);
    }

    private void publishInOrder() {
        try {
            for (InFlight b; (b = ordered.take()) != END; ) {
                try {
                    publish(b);
                } catch (RuntimeException e) {   // the publisher must outlive one bad batch
                    System.getLogger("argus.inference").log(System.Logger.Level.ERROR, "publishing a batch failed", e);
                } finally {
                    for (VideoFrame f : b.frames()) f.release();
                    published();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void publish(InFlight b) {
        List<VideoFrame> ok = new ArrayList<>(b.frames().size());
        List<List<Detection>> found = new ArrayList<>(b.frames().size());
        List<VideoFrame> lost = new ArrayList<>();
        Throwable lostBecause = null;
        List<StageTimes> stages = new ArrayList<>();
        // a batch's detections in its frames' order: parts are joined frame by frame below
        List<List<Detection>> byFrame = new ArrayList<>(Collections.nCopies(b.frames().size(), null));
        for (Part p : b.parts()) {
            try {
                GpuWorkers.Done done = p.result().join();
                for (int k = 0; k < p.frameIndexes().length; k++) byFrame.set(p.frameIndexes()[k], done.detections().get(k));
                if (done.stages() != null) stages.add(done.stages());
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                lostBecause = e.getCause() != null ? e.getCause() : e;
                for (int i : p.frameIndexes()) lost.add(b.frames().get(i));
            }
        }
        long end = System.nanoTime();
        for (int i = 0; i < b.frames().size(); i++) {
            if (byFrame.get(i) == null) continue;
            ok.add(b.frames().get(i));
            found.add(byFrame.get(i));
        }
        if (!lost.isEmpty()) publisher.failed(lost, lostBecause);
        if (!ok.isEmpty()) {
            publisher.publish(b.model(), ok, found, b.startNanos(), end, sum(stages), b.frames().size());
        }
    }

    /** Device time spent on one batch over its parts (null when no part was timed). */
    private static StageTimes sum(List<StageTimes> parts) {
        if (parts.isEmpty()) return null;
        double in = 0, net = 0, post = 0;
        for (StageTimes s : parts) {
            in += s.inputMs();
            net += s.networkMs();
            post += s.postMs();
        }
        return new StageTimes(in, net, post);
    }
}
