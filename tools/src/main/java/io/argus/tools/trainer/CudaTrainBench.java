package io.argus.tools.trainer;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.NcclClique;
import io.argus.trainer.cuda.CudaTrainingBackend;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.cuda.NcclRanks;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.parallel.RankThreads;
import io.argus.trainer.precision.LossScaler;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What {@code argus bench train} times: whole training iterations (forward, the {@link StandInLoss} = mean of the
 * squared head inputs, backward, the overflow check, SGD with momentum and decay on the FP32 masters, the FP16 refresh)
 * on one fixed random batch resident on the GPU, with dynamic loss scaling from 2^16 as PyTorch's GradScaler starts.
 * Images per second from the wall clock over whole iterations (each ends in the host reading the loss, the overflow
 * flag and the largest update, as real training does); device memory as the bytes this backend allocated (feature
 * maps, gradients, parameters, cuDNN workspace, the resident batch) and as cudaMemGetInfo's drop while it ran.
 * Prints one line per precision in a fixed format that scripts/gpu/train_summary.py reads.
 */
public final class CudaTrainBench {
    /** One precision's result. */
    public record Result(String mode, int batch, int iterations, double seconds, double imagesPerSecond,
                         long allocatedBytes, long peakAllocatedBytes, long usedBytes, double lastLoss, long skipped) {
        public double msPerIteration() { return 1000 * seconds / iterations; }
    }

    private final double seconds;
    private final int warmup;
    private final boolean profile;
    private final boolean describe;
    private final PrintStream out;

    /**
     * {@code profile}: also print one pass's per-layer device times; {@code describe}: also print each layer's
     * cuDNN algorithms (`argus bench train` with -Dargus.cuda.verbose=true).
     */
    public CudaTrainBench(double seconds, int warmup, boolean profile, boolean describe, PrintStream out) {
        this.seconds = seconds;
        this.warmup = warmup;
        this.profile = profile;
        this.describe = describe;
        this.out = out;
    }

    /** Times one mode (CudaTrainingOptions.mode: mixed, fp32 or tf32) on the {@link StandInLoss}. */
    public Result run(NetworkSpec spec, ModelWeights weights, int batch, CudaTrainingOptions options) {
        CudaRuntime.require();
        TrainingBatch input = randomBatch(spec, batch, 17);
        long freeBefore = GpuBuffer.freeDeviceMemory();
        long t0 = System.nanoTime();
        String name = options.modeName();
        try (CudaTrainingBackend backend = new CudaTrainingBackend(spec, weights, batch, options,
                new StandInLoss())) {
            backend.keepResident(input);
            out.printf(Locale.ROOT, "%s %s batch %d: set up in %.1f s on %s (%s)%n", spec.name(), name, batch,
                    (System.nanoTime() - t0) / 1e9, backend.device(), CudaRuntime.versions());
            out.println("device memory (MiB): " + backend.memoryBreakdown());
            out.println("cuDNN plans: " + backend.planning());
            if (describe) out.print(backend.describe());
            LossScaler scaler = new LossScaler(65536f, 1 << 24, 1f / 1024, 1000);
            SgdStep step = new SgdStep(0.001f, 0.9f, 0.0005f, batch, 0f);
            for (int i = 0; i < warmup; i++) iteration(backend, input, scaler, step);
            if (profile) out.print(backend.profile(input, scaler.scale()));
            long freeLow = GpuBuffer.freeDeviceMemory();
            List<Double> times = new ArrayList<>();
            LossParts last = LossParts.ZERO;
            long start = System.nanoTime();
            int done = 0;
            while (done < 5 || (System.nanoTime() - start) / 1e9 < seconds) {
                long i0 = System.nanoTime();
                last = iteration(backend, input, scaler, step);
                times.add((System.nanoTime() - i0) / 1e6);
                done++;
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            freeLow = Math.min(freeLow, GpuBuffer.freeDeviceMemory());
            Collections.sort(times);
            Result r = new Result(name, batch, done, elapsed, done * batch / elapsed, backend.allocatedBytes(),
                    backend.peakAllocatedBytes(), freeBefore - freeLow, last.total(), scaler.skipped());
            out.printf(Locale.ROOT, "argus-train model=%s precision=%s batch=%d iterations=%d images/s=%.1f "
                            + "ms/iter=%.3f median_ms=%.3f allocated_mib=%.0f peak_allocated_mib=%.0f used_mib=%.0f "
                            + "loss=%.6g loss_scale=%s skipped=%d%n",
                    spec.name(), name, batch, done, r.imagesPerSecond(),
                    r.msPerIteration(), times.get(times.size() / 2), mib(r.allocatedBytes()),
                    mib(r.peakAllocatedBytes()), mib(r.usedBytes()), r.lastLoss(), scaler.scale(), r.skipped());
            return r;
        }
    }

    /** One GPU count's result: every rank trained {@code batchPerGpu} images per iteration. */
    public record RanksResult(String mode, int gpus, int batchPerGpu, int iterations, double seconds,
                              double imagesPerSecond, double medianMs, boolean ranksIdentical, String nccl) {
        public double msPerIteration() { return 1000 * seconds / iterations; }
    }

    /**
     * Data-parallel training on GPUs 0..gpus-1 (one rank per GPU, a thread each, gradients summed by NCCL in buckets
     * during the backward pass): each rank trains on its own resident random batch of {@code batchPerGpu} images with
     * the {@link StandInLoss}, the ranks stepping together. The iterations run in rounds of {@code ROUND} on every
     * rank (a collective needs every rank, so all make the same number) until {@code seconds} have passed; images per
     * second count every rank's images. Afterwards the ranks' master weights are compared bit for bit: data-parallel
     * training keeps them identical. One GPU is the same code with one rank and no NCCL.
     */
    public RanksResult runRanks(NetworkSpec spec, ModelWeights weights, int batchPerGpu, int gpus,
                                CudaTrainingOptions options) {
        CudaRuntime.require();
        if (gpus > CudaRuntime.deviceCount()) {
            throw new IllegalArgumentException("--gpus " + gpus + ": this host has " + CudaRuntime.deviceCount()
                    + " GPU" + (CudaRuntime.deviceCount() == 1 ? "" : "s"));
        }
        long t0 = System.nanoTime();
        NcclClique clique = gpus > 1 ? NcclClique.of(NcclRanks.firstDevices(gpus)) : null;
        String nccl = clique == null ? "none" : NcclClique.version();
        CudaTrainingBackend[] backends = new CudaTrainingBackend[gpus];
        TrainingBatch[] inputs = new TrainingBatch[gpus];
        LossScaler[] scalers = new LossScaler[gpus];
        SgdStep step = new SgdStep(0.001f, 0.9f, 0.0005f, batchPerGpu * gpus, 0f);
        List<Double> times = Collections.synchronizedList(new ArrayList<>());
        try (RankThreads ranks = new RankThreads(gpus, "argus-bench-train", () -> {
            if (clique != null) clique.abort();
        })) {
            try {
                ranks.onEach(r -> {
                    backends[r] = new CudaTrainingBackend(spec, weights, batchPerGpu, options.withDevice(r),
                            new StandInLoss(), clique == null ? null : clique.rank(r));
                    inputs[r] = randomBatch(spec, batchPerGpu, 17 + r);
                    backends[r].keepResident(inputs[r]);
                    scalers[r] = new LossScaler(65536f, 1 << 24, 1f / 1024, 1000);
                    for (int i = 0; i < warmup; i++) iteration(backends[r], inputs[r], scalers[r], step);
                    return null;
                });
                out.printf(Locale.ROOT, "%s %s on %d GPU%s, %d images each: set up in %.1f s (%s; NCCL %s)%n",
                        spec.name(), options.modeName(), gpus, gpus == 1 ? "" : "s", batchPerGpu,
                        (System.nanoTime() - t0) / 1e9, backends[0].device(), nccl);
                int done = 0;
                long start = System.nanoTime();
                while (done < 5 || (System.nanoTime() - start) / 1e9 < seconds) {
                    ranks.onEach(r -> {
                        for (int i = 0; i < ROUND; i++) {
                            long i0 = System.nanoTime();
                            iteration(backends[r], inputs[r], scalers[r], step);
                            if (r == 0) times.add((System.nanoTime() - i0) / 1e6);
                        }
                        return null;
                    });
                    done += ROUND;
                }
                double elapsed = (System.nanoTime() - start) / 1e9;
                List<float[]> masters = ranks.onEach(r -> backends[r].masterArena());
                boolean identical = true;
                for (int r = 1; r < gpus; r++) identical &= java.util.Arrays.equals(masters.get(0), masters.get(r));
                List<Double> sorted = new ArrayList<>(times);
                Collections.sort(sorted);
                RanksResult result = new RanksResult(options.modeName(), gpus, batchPerGpu, done, elapsed,
                        (double) done * batchPerGpu * gpus / elapsed, sorted.get(sorted.size() / 2), identical, nccl);
                out.printf(Locale.ROOT, "argus-train-gpus model=%s precision=%s gpus=%d batch_per_gpu=%d "
                                + "iterations=%d images/s=%.1f per_gpu=%.1f ms/iter=%.3f median_ms=%.3f "
                                + "ranks_identical=%s loss_scale=%s skipped=%d%n",
                        spec.name(), result.mode(), gpus, batchPerGpu, done, result.imagesPerSecond(),
                        result.imagesPerSecond() / gpus, result.msPerIteration(), result.medianMs(), identical,
                        scalers[0].scale(), scalers[0].skipped());
                return result;
            } finally {
                ranks.onEach(r -> {
                    if (backends[r] != null) backends[r].close();
                    return null;
                });
                if (clique != null) clique.close();
            }
        }
    }

    /** Iterations each rank makes between the driver's checks of the clock. */
    private static final int ROUND = 5;

    private static double mib(long bytes) { return bytes / 1048576.0; }

    private static LossParts iteration(CudaTrainingBackend backend, TrainingBatch input, LossScaler scaler,
                                       SgdStep step) {
        float scale = scaler.scale();
        LossParts loss = backend.forwardBackward(input, scale, true);
        if (scaler.accept(backend.gradientsOverflowed())) {
            scaler.followUpdate(backend.step(step, scale), false);
        } else {
            backend.discardGradients();
        }
        return loss;
    }

    /** Random images in [0, 1] (seeded), no truths: the stand-in loss needs none. */
    static TrainingBatch randomBatch(NetworkSpec spec, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] data = new float[n * spec.inputShape().size()];
        for (int i = 0; i < data.length; i++) data[i] = (float) rnd.nextDouble();
        List<List<Truth>> truths = new ArrayList<>();
        for (int i = 0; i < n; i++) truths.add(List.of());
        return new TrainingBatch(data, truths, n);
    }
}
