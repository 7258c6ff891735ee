package io.argus.tools.detector;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.cuda.GpuWorkers;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * How inference scales over the GPUs of one host (what {@code argus bench --backend cuda --gpus 1,2,4} prints). For
 * each GPU count N: one worker per GPU 0..N-1 ({@link GpuWorkers}, the dispatcher the pipeline uses), every worker
 * kept busy with {@code inFlight} batches outstanding, each batch a whole detect call on real frames as a camera
 * pipeline makes it (frames uploaded from host memory, preprocess, forward, decode, NMS, detections back). After a
 * warm-up (every worker has finished {@code warmupBatches} batches) the images each GPU finishes in a window of
 * {@code seconds} are counted. Scaling is N GPUs' total over N times the one-GPU total of the same run: 1.0 is
 * perfect; the goal is 0.9 at batch 64.
 */
public final class GpuScalingBench {
    /** One GPU count's result: the images each GPU finished within the timed window of {@code seconds}. */
    public record Measurement(int gpus, int batch, double seconds, long[] imagesPerGpu) {
        public double imagesPerSecond() { return Arrays.stream(imagesPerGpu).sum() / seconds; }

        public double imagesPerSecond(int gpu) { return imagesPerGpu[gpu] / seconds; }

        /** This total over {@code gpus} times {@code oneGpu}'s (measured in the same run). */
        public double scaling(Measurement oneGpu) {
            return imagesPerSecond() / (gpus * oneGpu.imagesPerSecond());
        }
    }

    private final double seconds;
    private final int warmupBatches;
    private final int inFlight;
    private final PrintStream out;

    /**
     * @param seconds       timed window per GPU count
     * @param warmupBatches batches every worker finishes before the window opens (at least 1)
     * @param inFlight      batches outstanding per worker (2-3 keep a GPU busy between two detect calls)
     */
    public GpuScalingBench(double seconds, int warmupBatches, int inFlight, PrintStream out) {
        if (!(seconds > 0)) throw new IllegalArgumentException("--seconds: expected more than 0, found " + seconds);
        if (inFlight < 1) throw new IllegalArgumentException("--in-flight: expected at least 1, found " + inFlight);
        this.seconds = seconds;
        this.warmupBatches = Math.max(1, warmupBatches);
        this.inFlight = inFlight;
        this.out = out;
    }

    /**
     * The GPU counts to measure: those asked for, ascending and each once, with 1 added when missing (the scaling
     * needs the one-GPU figure of the same run). A count below 1, or above the {@code devices} this host has, is an
     * error naming it.
     */
    public static int[] counts(int[] asked, int devices) {
        if (asked == null || asked.length == 0) throw new IllegalArgumentException("--gpus: expected GPU counts, e.g. 1,2,4");
        for (int n : asked) {
            if (n < 1) throw new IllegalArgumentException("--gpus " + n + ": expected GPU counts of at least 1");
            if (n > devices) {
                throw new IllegalArgumentException("--gpus " + n + ": this host has " + devices + " CUDA device"
                        + (devices == 1 ? "" : "s"));
            }
        }
        return java.util.stream.IntStream.concat(java.util.stream.IntStream.of(1), Arrays.stream(asked))
                .distinct().sorted().toArray();
    }

    /**
     * Measures every count in {@code counts} (1 first) at batch {@code batch}: {@code open.apply(n)} gives n workers
     * (the CLI: GPUs 0..n-1), closed again after. Prints one {@link #line} per count and returns the measurements.
     */
    public List<Measurement> run(String model, int[] counts, int batch, IntFunction<GpuWorkers> open,
                                 BgrImage frame, DetectParams params) throws InterruptedException {
        return run(model, counts, batch, open, java.util.Collections.nCopies(batch, frame), params);
    }

    /** As above with the batch's frames given ({@code batch} of them, each its own buffer: {@link HostFrames}). */
    public List<Measurement> run(String model, int[] counts, int batch, IntFunction<GpuWorkers> open,
                                 List<BgrImage> frames, DetectParams params) throws InterruptedException {
        if (counts.length == 0 || counts[0] != 1) throw new IllegalArgumentException("the counts must start with 1");
        if (frames.size() != batch) throw new IllegalArgumentException(frames.size() + " frames for batch " + batch);
        List<Measurement> results = new ArrayList<>();
        for (int n : counts) {
            long t0 = System.nanoTime();
            Measurement m;
            try (GpuWorkers workers = open.apply(n)) {
                out.printf(Locale.ROOT, "gpus %d: %d workers open in %.1f s; %d batches of %d in flight per worker, "
                        + "%d warm-up batches each, %.1f s timed%n", n, workers.size(), (System.nanoTime() - t0) / 1e9,
                        inFlight, batch, warmupBatches, seconds);
                m = measure(workers, frames, params);
            }
            results.add(m);
            out.println(line(model, m, results.get(0)));
        }
        return results;
    }

    /**
     * Keeps {@code workers.size() x inFlight} batches of {@code frames} outstanding (a finished batch makes room for
     * the next, which goes to the least loaded worker) through the warm-up and the timed window, then waits for the
     * last ones. A failed batch, or a GPU taken out, fails the measurement.
     */
    public Measurement measure(GpuWorkers workers, List<BgrImage> frames, DetectParams params)
            throws InterruptedException {
        int n = workers.size();
        Semaphore room = new Semaphore(n * inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // a GPU taken out mid-run would leave the others to carry its share: the figures would mean nothing
        workers.onRemoval(r -> failure.compareAndSet(null, new IllegalStateException(r.describe(), r.cause())));
        long[] before = null;
        long windowStart = 0;
        long windowNanos = Math.round(seconds * 1e9);
        long[] after;
        long windowEnd;
        while (true) {
            throwIfFailed(failure);
            long now = System.nanoTime();
            if (before == null && warmedUp(workers.completedBatches())) {
                before = workers.completedImages();
                windowStart = System.nanoTime();
            } else if (before != null && now - windowStart >= windowNanos) {
                after = workers.completedImages();
                windowEnd = System.nanoTime();
                break;
            }
            if (!room.tryAcquire(5, TimeUnit.MILLISECONDS)) continue;
            workers.submit(frames, params).whenComplete((found, error) -> {
                if (error != null) failure.compareAndSet(null, error);
                room.release();
            });
        }
        room.acquire(n * inFlight);   // the batches still out finish before the workers close
        throwIfFailed(failure);
        long[] images = new long[n];
        for (int i = 0; i < n; i++) images[i] = after[i] - before[i];
        return new Measurement(n, frames.size(), (windowEnd - windowStart) / 1e9, images);
    }

    private boolean warmedUp(int[] batchesDone) {
        for (int b : batchesDone) if (b < warmupBatches) return false;
        return true;
    }

    private static void throwIfFailed(AtomicReference<Throwable> failure) {
        Throwable e = failure.get();
        if (e == null) return;
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        throw new IllegalStateException(cause instanceof IllegalStateException ? cause.getMessage()
                : "a batch failed: " + cause.getMessage(), cause);
    }

    /**
     * The result line, fixed for scripts: {@code argus-gpus model=yolov4-tiny batch=64 gpus=2 images/s=8210.4
     * per_gpu=4105.9,4104.5 scaling=0.973}, scaling against {@code oneGpu} (measured in the same run).
     */
    public static String line(String model, Measurement m, Measurement oneGpu) {
        StringJoiner perGpu = new StringJoiner(",");
        for (int i = 0; i < m.gpus(); i++) perGpu.add(String.format(Locale.ROOT, "%.1f", m.imagesPerSecond(i)));
        return String.format(Locale.ROOT, "argus-gpus model=%s batch=%d gpus=%d images/s=%.1f per_gpu=%s scaling=%.3f",
                model, m.batch(), m.gpus(), m.imagesPerSecond(), perGpu, m.scaling(oneGpu));
    }
}
