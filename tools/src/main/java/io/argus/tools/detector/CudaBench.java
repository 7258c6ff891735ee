package io.argus.tools.detector;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.CudaNetwork;
import io.argus.detector.cuda.CudaOptions;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.detector.onnx.OnnxHead;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Times the CUDA backend (what {@code argus bench --backend cuda} prints): per batch size the network forward as a
 * CUDA graph and layer by layer (device time from CUDA events, median of repeated samples), and the whole detect
 * call on real frames (preprocess + forward + decode + NMS, host wall clock) in each memory mode asked for. For an
 * imported model the forward includes the graph's tail kernel (as the peers' forward includes the decoding the graph
 * holds); a tail left on the host runs in detect only.
 */
public final class CudaBench {
    /** One measurement: {@code what} ran on {@code batch} images in {@code ms} per batch (median of runs). */
    public record Result(String what, int batch, double ms, int runs, long flopsPerImage) {
        public double imagesPerSecond() { return 1000.0 * batch / ms; }

        public double teraflops() { return flopsPerImage * (double) batch / (ms / 1000.0) / 1e12; }
    }

    private final double seconds;
    private final int minIterations;
    private final int warmup;
    private final PrintStream out;

    public CudaBench(double seconds, int minIterations, int warmup, PrintStream out) {
        this.seconds = seconds;
        this.minIterations = minIterations;
        this.warmup = warmup;
        this.out = out;
    }

    /** The forward per batch, then whole detect calls with frames in each of {@code frameKinds} (a buffer a frame). */
    public List<Result> run(Model model, int[] batches, BgrImage picture, List<MemoryMode> memories,
                            List<HostFrames.Kind> frameKinds, CudaOptions options) {
        List<Result> results = new ArrayList<>();
        int max = Arrays.stream(batches).max().orElse(1);
        long flops = model.spec().flops();
        for (int m = 0; m < memories.size(); m++) {
            long t0 = System.nanoTime();
            try (CudaBackend backend = CudaBackend.open(model, max, options.withMemory(memories.get(m)))) {
                CudaNetwork net = backend.network();
                if (m == 0) {
                    out.printf(Locale.ROOT, "device: %s; %s; built %s for batch %d in %.1f s%n", net.device(),
                            CudaRuntime.versions(), model.spec().name(), max, (System.nanoTime() - t0) / 1e9);
                }
                String mode = backend.memoryMode().name().toLowerCase(Locale.ROOT);
                DetectParams params = realisticThreshold(backend, picture);
                for (int b : batches) {
                    long p0 = System.nanoTime();
                    backend.detect(Collections.nCopies(b, picture), params);   // plans for this batch size, graph capture
                    double prepare = (System.nanoTime() - p0) / 1e9;
                    if (m == 0) {
                        if (prepare > 1) out.printf(Locale.ROOT, "batch %d prepared in %.1f s%n", b, prepare);
                        results.add(report(deviceTime(net, b, true), "forward, CUDA graph", b, flops));
                        results.add(report(deviceTime(net, b, false), "forward, no graph", b, flops));
                    }
                    for (HostFrames.Kind kind : frameKinds) {
                        try (HostFrames host = new HostFrames(kind, picture, b)) {
                            List<BgrImage> frames = host.frames();
                            int found = 0;
                            for (var d : backend.detect(frames, params)) found += d.size();
                            if (backend.lastCpuFallbacks() > 0) {
                                out.printf(Locale.ROOT, "batch %d: %d images post-processed on the CPU%n", b,
                                        backend.lastCpuFallbacks());
                            }
                            results.add(report(wallTime(() -> backend.detect(frames, params)),
                                    "detect " + picture.width() + "x" + picture.height() + " frames end to end, " + mode
                                            + " memory, " + (kind == HostFrames.Kind.PINNED ? "pinned frames, " : "")
                                            + String.format(Locale.ROOT, "%.1f", found / (double) b)
                                            + " detections/image", b, flops));
                        }
                    }
                }
                if (m == 0 && net.graphProblem() != null) out.println("CUDA graphs: " + net.graphProblem());
                if (m == 0 && OnnxHead.in(model) != null) {
                    out.println("the graph's tail: " + (net.tailProblem() == null ? "its family's kernel, in the forward"
                            : "on the host, after the forward (" + net.tailProblem() + ")"));
                }
            }
        }
        return results;
    }

    /**
     * The lowest of 0.25 ... 0.999 that leaves at most 200 candidate boxes and 50 detections on the picture: random
     * weights can put every anchor over 0.25, which no trained model does, and the end-to-end time should measure
     * the pipeline, not that.
     */
    private DetectParams realisticThreshold(CudaBackend backend, BgrImage picture) {
        return realisticThreshold(backend, picture, out);
    }

    /** As above, printing the choice on {@code out}; also used by {@link GpuScalingBench}'s command line. */
    public static DetectParams realisticThreshold(CudaBackend backend, BgrImage picture, PrintStream out) {
        for (float t : new float[] {0.25f, 0.5f, 0.75f, 0.9f, 0.95f, 0.99f, 0.999f}) {
            DetectParams p = new DetectParams(t, 0.45f, null);
            int found = backend.detect(List.of(picture), p).get(0).size();
            int candidates = backend.lastCandidates();
            if ((found <= 50 && candidates <= 200) || t == 0.999f) {
                out.printf(Locale.ROOT, "detect threshold %.3f (%d candidates, %d detections on the picture)%n", t,
                        candidates, found);
                return p;
            }
        }
        throw new IllegalStateException("unreachable");
    }

    private Result report(double[] msAndRuns, String what, int batch, long flops) {
        Result r = new Result(what, batch, msAndRuns[0], (int) msAndRuns[1], flops);
        out.printf(Locale.ROOT, "%-10s batch %3d: %8.3f ms/batch  %8.4f ms/image  %9.1f images/s  %6.1f TFLOP/s  (%s, %d runs)%n",
                "argus-cuda", batch, r.ms(), r.ms() / batch, r.imagesPerSecond(), r.teraflops(), what, r.runs());
        return r;
    }

    /** Median device milliseconds per forward, from CUDA events around groups of launches. */
    private double[] deviceTime(CudaNetwork net, int batch, boolean graph) {
        Runnable one = graph ? () -> net.forward(batch) : () -> net.forwardWithoutGraph(batch);
        for (int i = 0; i < Math.max(1, warmup); i++) one.run();
        net.stream().synchronize();
        float single = net.stream().time(one);
        int group = (int) Math.max(1, Math.min(50, Math.ceil(2.0 / Math.max(single, 1e-3))));
        List<Double> samples = new ArrayList<>();
        long start = System.nanoTime();
        while (samples.size() < minIterations || (System.nanoTime() - start) / 1e9 < seconds) {
            float ms = net.stream().time(() -> {
                for (int i = 0; i < group; i++) one.run();
            });
            samples.add((double) ms / group);
        }
        return new double[] {median(samples), samples.size() * group};
    }

    private double[] wallTime(Runnable call) {
        for (int i = 0; i < Math.max(1, warmup); i++) call.run();
        List<Double> samples = new ArrayList<>();
        long start = System.nanoTime();
        while (samples.size() < minIterations || (System.nanoTime() - start) / 1e9 < seconds) {
            long t0 = System.nanoTime();
            call.run();
            samples.add((System.nanoTime() - t0) / 1e6);
        }
        return new double[] {median(samples), samples.size()};
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
