package io.argus.trainer.bench;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuBuffer;
import io.argus.trainer.cuda.CudaTrainingBackend;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.TrainingBatch;
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

    private static double mib(long bytes) { return bytes / 1048576.0; }

    private static LossParts iteration(CudaTrainingBackend backend, TrainingBatch input, LossScaler scaler,
                                       SgdStep step) {
        float scale = scaler.scale();
        LossParts loss = backend.forwardBackward(input, scale);
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
