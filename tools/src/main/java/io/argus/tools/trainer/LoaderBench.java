package io.argus.tools.trainer;

import io.argus.trainer.data.Augmentation;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.DetectionBatches;
import io.argus.trainer.data.PrefetchingBatches;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code argus bench loader} times: the images per second the training-batch loader ({@link PrefetchingBatches})
 * sustains on its own, for a dataset, augmentation, input size, batch, loader threads and depth. The consumer takes
 * each batch as soon as it is ready and does nothing with it, so the figure is the loader's ceiling: a GPU that trains
 * fewer images per second than this (argus bench train) is kept fed by it, one that trains more waits for data.
 * Also the process's CPU time per image over the timed batches: on a shared machine the images per second depend on
 * what else runs, the CPU time per image much less, and {@code 1000 / cpu_ms_per_image} estimates the images per
 * second of one otherwise idle core of the same kind. Prints one line per run in a fixed format
 * ({@code argus-loader key=value ...}).
 */
public final class LoaderBench {
    /** One run's result. */
    public record Result(int threads, int depth, int batch, long batches, double seconds, double imagesPerSecond,
                         double medianBatchMs, double cpuMsPerImage, long decodedBytes) {}

    private final double warmupSeconds;
    private final double seconds;
    private final PrintStream out;

    public LoaderBench(double warmupSeconds, double seconds, PrintStream out) {
        this.warmupSeconds = warmupSeconds;
        this.seconds = seconds;
        this.out = out;
    }

    /**
     * Decodes every sample now, on {@code threads} threads, keeping what the dataset's budget holds: the state of a
     * long run after its first epochs, timed apart from the batches. Returns the seconds it took.
     */
    public static double decodeAll(Dataset dataset, int threads) {
        long t0 = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                parts.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < dataset.size(); i = next.getAndIncrement()) dataset.image(i);
                }));
            }
            for (Future<?> f : parts) f.get();
        } catch (Exception e) {
            throw new IllegalStateException("decoding the dataset failed: " + e.getMessage(), e);
        } finally {
            pool.shutdownNow();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Times the loader: {@code warmupSeconds} of batches untimed, then at least {@code seconds} and 3 batches timed. */
    public Result run(Dataset dataset, Augmentation aug, int width, int height, int batch, int threads, int depth,
                      long seed) {
        DetectionBatches recipe = new DetectionBatches(dataset, aug, width, height, batch, seed, 0);
        try (PrefetchingBatches loader = new PrefetchingBatches(recipe, threads, depth)) {
            long warmEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
            do {
                loader.next();
            } while (System.nanoTime() < warmEnd);
            List<Double> ms = new ArrayList<>();
            long cpuStart = processCpuNanos();
            long start = System.nanoTime();
            long last = start;
            while (ms.size() < 3 || (last - start) / 1e9 < seconds) {
                loader.next();
                long now = System.nanoTime();
                ms.add((now - last) / 1e6);
                last = now;
            }
            double cpuMs = (processCpuNanos() - cpuStart) / 1e6;
            double elapsed = (last - start) / 1e9;
            Collections.sort(ms);
            Result r = new Result(threads, depth, batch, ms.size(), elapsed, ms.size() * (double) batch / elapsed,
                    ms.get(ms.size() / 2), cpuMs / (ms.size() * (double) batch), dataset.decodedBytes());
            out.printf(Locale.ROOT, "argus-loader data=%s samples=%d packed=%s batch=%d input=%dx%d threads=%d depth=%d "
                            + "batches=%d seconds=%.2f images/s=%.1f median_batch_ms=%.1f cpu_ms_per_image=%.2f "
                            + "decoded_kept_mib=%.1f decoded_budget_mib=%.1f%n",
                    dataset.list(), dataset.size(), dataset.packed(), batch, width, height, threads, depth, r.batches(),
                    r.seconds(), r.imagesPerSecond(), r.medianBatchMs(), r.cpuMsPerImage(), mib(r.decodedBytes()),
                    mib(dataset.decodedBudget()));
            return r;
        }
    }

    private static double mib(long bytes) { return bytes / 1048576.0; }

    /** CPU time of this whole process (every thread: the loader's, GC, the consumer's), or 0 where not reported. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? Math.max(0, os.getProcessCpuTime()) : 0;
    }
}
