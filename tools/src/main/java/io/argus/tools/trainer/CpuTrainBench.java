package io.argus.tools.trainer;

import io.argus.detector.cpu.CpuInfo;
import io.argus.detector.cpu.OneDnnInfo;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.train.CpuTrainingBackend;
import java.awt.image.DataBufferByte;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What {@code argus bench train --backend cpu} times: whole CPU training iterations as {@code argus train} runs them
 * (forward, the YOLO loss against the scenes' boxes, backward, the overflow check, SGD with momentum and decay) on one
 * fixed batch of synthetic scenes held in memory, so the figure is the trainer's alone, without the batch loader.
 * Images per second from the wall clock over whole iterations. Darknet's {@code detector train} log gives the same
 * quantity per iteration (its "seconds" cover train_network: forward, backward and update of one batch).
 */
public final class CpuTrainBench {
    /** One run's result. */
    public record Result(String mode, int batch, int threads, int iterations, double seconds, double imagesPerSecond,
                         double medianMs) {}

    private final double seconds;
    private final int warmup;
    private final PrintStream out;

    public CpuTrainBench(double seconds, int warmup, PrintStream out) {
        this.seconds = seconds;
        this.warmup = warmup;
        this.out = out;
    }

    /** Times CPU training of {@code batch} images per iteration on {@code threads} threads, FP32 or emulated FP16. */
    public Result run(NetworkSpec spec, ModelWeights weights, int batch, int threads, boolean fp16) {
        TrainingBatch input = scenes(spec, batch, 7);
        String mode = fp16 ? "fp16-emulated" : "fp32";
        CpuInfo cpu = CpuInfo.current();
        long t0 = System.nanoTime();
        try (CpuTrainingBackend backend = new CpuTrainingBackend(spec, weights, batch, threads, fp16)) {
            out.printf(Locale.ROOT, "%s cpu %s batch %d: set up in %.1f s; %s; %s, flags %s%n", spec.name(), mode, batch,
                    (System.nanoTime() - t0) / 1e9, backend.name(), cpu.describe(), cpu.relevantFlags());
            out.println(OneDnnInfo.describe());
            SgdStep step = new SgdStep(0.001f, 0.9f, 0.0005f, batch, 0f);
            for (int i = 0; i < warmup; i++) iteration(backend, input, step);
            List<Double> times = new ArrayList<>();
            LossParts last = LossParts.ZERO;
            long start = System.nanoTime();
            int done = 0;
            while (done < 3 || (System.nanoTime() - start) / 1e9 < seconds) {
                long i0 = System.nanoTime();
                last = iteration(backend, input, step);
                times.add((System.nanoTime() - i0) / 1e6);
                done++;
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            Collections.sort(times);
            Result r = new Result(mode, batch, threads, done, elapsed, done * batch / elapsed, times.get(times.size() / 2));
            out.printf(Locale.ROOT, "argus-train-cpu model=%s precision=%s batch=%d threads=%d iterations=%d "
                            + "images/s=%.2f median_ms=%.1f min_ms=%.1f max_ms=%.1f loss=%.6g cpu_family=%s cpu_model=%s%n",
                    spec.name(), mode, batch, threads, done, r.imagesPerSecond(), r.medianMs(), times.get(0),
                    times.get(times.size() - 1), last.total(), cpu.family(), cpu.model());
            return r;
        }
    }

    private static LossParts iteration(CpuTrainingBackend backend, TrainingBatch batch, SgdStep step) {
        LossParts parts = backend.forwardBackward(batch, 1f);
        if (backend.gradientsOverflowed()) backend.discardGradients();
        else backend.step(step, 1f);   // consumes the gradients
        return parts;
    }

    /** {@code n} synthetic scenes (SyntheticScenes, the dataset `argus dataset synth` writes) as one batch. */
    static TrainingBatch scenes(NetworkSpec spec, int n, long seed) {
        int w = spec.net().width();
        int h = spec.net().height();
        int plane = w * h;
        float[] data = new float[n * 3 * plane];
        List<List<Truth>> truths = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SyntheticScenes.Scene s = SyntheticScenes.render(w, h, seed, i);
            byte[] bgr = ((DataBufferByte) s.image().getRaster().getDataBuffer()).getData();
            int base = i * 3 * plane;
            for (int p = 0; p < plane; p++) {
                data[base + p] = (bgr[3 * p + 2] & 0xff) / 255f;
                data[base + plane + p] = (bgr[3 * p + 1] & 0xff) / 255f;
                data[base + 2 * plane + p] = (bgr[3 * p] & 0xff) / 255f;
            }
            truths.add(s.truths());
        }
        return new TrainingBatch(data, truths, n);
    }
}
