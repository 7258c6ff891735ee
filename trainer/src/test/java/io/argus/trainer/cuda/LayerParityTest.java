package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.cuda.LayerParityCases.Case;
import io.argus.trainer.cuda.LayerParityCases.Tolerance;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.nn.ConvParameters;
import io.argus.trainer.nn.TrainNetwork;
import io.argus.trainer.train.CpuTrainingBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * THE parity harness: every layer kind x its options ({@link LayerParityCases}) x batch {1, 7, 32, 64} x precision
 * {mixed, fp32}, GPU (GpuTrainNetwork over the shared layer classes) against the CPU reference (trainer/nn), forward
 * and backward, one table of tolerances, one printed row per (case, batch, precision): layer, options, batch,
 * precision, forward max error, backward max error, tolerance, pass. Then whole networks at batch 1, 32 and 64.
 * Errors are relative L2 per image, the largest over the first and last image of the batch. The CPU-only
 * {@link LayerParityCasesTest} proves the tables cover every layer kind and every case builds its CPU reference.
 */
@Tag("gpu")
@Budget(seconds = 5)
class LayerParityTest {
    private static final String HEADER = String.format(Locale.ROOT, "%-14s %-34s %5s %-6s %10s %10s %-19s %s",
            "layer", "options", "batch", "prec", "fwd err", "bwd err", "tolerance fwd/bwd", "pass");

    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    static Stream<Arguments> layerCases() {
        List<Arguments> out = new ArrayList<>();
        for (Case c : LayerParityCases.cases()) {
            for (Precision p : LayerParityCases.PRECISIONS) out.add(Arguments.of(c, p));
        }
        return out.stream();
    }

    /** Measured errors of one pass. */
    private record Errors(double forward, double backward, double emulation) {}

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("layerCases")
    void layerMatchesTheCpu(Case c, Precision precision) {
        NetworkSpec spec = c.spec();
        Tolerance tol = LayerParityCases.tolerance(c.kind(), precision);
        List<String> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        int max = LayerParityCases.BATCHES[LayerParityCases.BATCHES.length - 1];
        boolean mixed = precision == Precision.MIXED;
        ModelWeights weights = WeightsInit.darknet(spec, 7);
        try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, weights, max, 2, mixed);
             CpuTrainingBackend exact = new CpuTrainingBackend(spec, weights, max, 2, false);
             CudaTrainingBackend gpu = new CudaTrainingBackend(spec, weights, max, GpuTests.options(precision), true)) {
            for (int n : LayerParityCases.BATCHES) {
                TrainingBatch batch = GpuTests.batch(spec, n, 3 + n);
                LossParts lc = cpu.forwardBackward(batch, 1f);
                LossParts lg = gpu.forwardBackward(batch, 1f);
                exact.forwardBackward(batch, 1f);
                Errors e = measure(spec, c.layer(), n, gpu, cpu.network(), exact.network(), lc, lg);
                double allowed = mixed ? 2 * e.emulation() + tol.backward() : tol.backward();
                boolean pass = e.forward() <= tol.forward() && e.backward() <= allowed;
                String row = row(c.kind(), c.options(), n, precision, e.forward(), e.backward(), tol.forward(),
                        allowed, pass);
                rows.add(row);
                if (!pass) failures.add(row);
            }
        }
        System.out.println(HEADER);
        rows.forEach(System.out::println);
        assertTrue(failures.isEmpty(), HEADER + "\n" + String.join("\n", failures));
    }

    static String row(String kind, String options, int n, Precision p, double fwd, double bwd, double tolFwd,
                      double tolBwd, boolean pass) {
        return String.format(Locale.ROOT, "%-14s %-34s %5d %-6s %10.2e %10.2e %8.1e/%-9.2e %s", kind, options, n,
                p.name().toLowerCase(Locale.ROOT), fwd, bwd, tolFwd, tolBwd, pass ? "ok" : "FAIL");
    }

    /**
     * Forward: the layer's output against the CPU (the FP16 emulation in mixed precision; for [yolo] the loss parts).
     * Backward: the gradients this layer's backward writes (its inputs'; a convolution's weight gradient too)
     * against the CPU in FP32, and the emulation's own error against FP32.
     */
    private static Errors measure(NetworkSpec spec, int i, int n, CudaTrainingBackend gpu, TrainNetwork cpu,
                                  TrainNetwork exact, LossParts lc, LossParts lg) {
        LayerSpec l = spec.layers().get(i);
        GpuTrainNetwork g = gpu.network();
        double fwd = 0, bwd = 0, emu = 0;
        int[] images = n == 1 ? new int[] {0} : new int[] {0, n - 1};
        if (l instanceof YoloSpec) {
            fwd = Math.max(GpuTests.relative(lg.box(), lc.box()), Math.max(GpuTests.relative(lg.objectness(),
                    lc.objectness()), GpuTests.relative(lg.classification(), lc.classification())));
            if (lg.assigned() != lc.assigned()) fwd = Double.POSITIVE_INFINITY;
        } else {
            for (int b : images) {
                fwd = Math.max(fwd, GpuTests.relL2(g.output(i, b), GpuTests.image(cpu.output(i), b,
                        l.output().size())));
            }
        }
        for (int in : l.inputs()) {
            if (in < 0) continue;
            // a [route] of one input without groups is its input's tensors on the GPU (its gradient is the input's
            // whole gradient), its own buffer on the CPU: compare the gradient of the layer it aliases
            while (spec.layers().get(in) instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) in = r.layers()[0];
            int size = spec.layers().get(in).output().size();
            for (int b : images) {
                float[] truth = GpuTests.image(exact.gradient(in), b, size);
                bwd = Math.max(bwd, GpuTests.relL2(g.gradient(in, b), truth));
                emu = Math.max(emu, GpuTests.relL2(GpuTests.image(cpu.gradient(in), b, size), truth));
            }
        }
        if (l instanceof ConvolutionalSpec) {
            double[] w = ConvolutionAdapter.weightGradientErrors(gpu, cpu, exact, i);
            bwd = Math.max(bwd, w[0]);
            emu = Math.max(emu, w[1]);
        }
        return new Errors(fwd, bwd, emu);
    }

    /**
     * The one place the harness reaches into the training convolution (detector/.../cuda/layers/Convolutional,
     * through CudaTrainingBackend.parameterGradients, which reads the parameter arena): its parameter gradients. {GPU vs CPU FP32, CPU emulation vs CPU FP32} of the weight gradient, relative L2.
     */
    static final class ConvolutionAdapter {
        private ConvolutionAdapter() {}

        static double[] weightGradientErrors(CudaTrainingBackend gpu, TrainNetwork cpu, TrainNetwork exact, int i) {
            ConvParameters p = exact.parameters().get(i);
            ConvParameters e = cpu.parameters().get(i);
            float[] truth = GpuTests.copy(p.weights().gradient(), p.weights().size());
            return new double[] {GpuTests.relL2(gpu.parameterGradients(i)[0], truth),
                    GpuTests.relL2(GpuTests.copy(e.weights().gradient(), e.weights().size()), truth)};
        }
    }

    static Stream<Arguments> networks() throws IOException {
        List<Arguments> out = new ArrayList<>();
        List<String[]> nets = new ArrayList<>(List.of(new String[] {"conv", GpuLayerGradientTest.CONV},
                new String[] {"pool-route", GpuLayerGradientTest.POOL_ROUTE},
                new String[] {"shortcut-upsample", GpuLayerGradientTest.SHORTCUT_UPSAMPLE}));
        Path tiny = repositoryFile("config/models/cfg/yolov4-tiny.cfg");
        if (Files.exists(tiny)) nets.add(new String[] {"yolov4-tiny@128", Files.readString(tiny)});
        for (String[] net : nets) {
            for (Precision p : LayerParityCases.PRECISIONS) out.add(Arguments.of(net[0], net[1], p));
        }
        return out.stream();
    }

    private static Path repositoryFile(String relative) {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(relative))) return p.resolve(relative);
        }
        return Path.of(relative);
    }

    /**
     * Whole networks at batch 1, 32 and 64: every layer's output and input gradients, and the loss, GPU training
     * network against the CPU reference (yolov4-tiny at 128x128 to keep the CPU reference within seconds).
     */
    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("networks")
    void networkMatchesTheCpu(String name, String cfg, Precision precision) {
        NetworkSpec spec = name.contains("@")
                ? NetworkSpec.parse(Path.of(name + ".cfg"), cfg, 128, 128)
                : GpuTests.spec(name, cfg);
        boolean mixed = precision == Precision.MIXED;
        ModelWeights weights = WeightsInit.darknet(spec, 7);
        List<String> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, weights, 64, 2, mixed);
             CpuTrainingBackend exact = new CpuTrainingBackend(spec, weights, 64, 2, false);
             CudaTrainingBackend gpu = new CudaTrainingBackend(spec, weights, 64, GpuTests.options(precision), true)) {
            int[] sizes = {1, 32, 64};
            Errors[][] errors = new Errors[sizes.length][spec.layers().size()];
            for (int k = 0; k < sizes.length; k++) {
                int n = sizes[k];
                TrainingBatch batch = GpuTests.batch(spec, n, 11 + n);
                LossParts lc = cpu.forwardBackward(batch, 1f);
                LossParts lg = gpu.forwardBackward(batch, 1f);
                exact.forwardBackward(batch, 1f);
                for (LayerSpec l : spec.layers()) {
                    if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
                    errors[k][l.index()] = measure(spec, l.index(), n, gpu, cpu.network(), exact.network(), lc, lg);
                }
            }
            for (LayerSpec l : spec.layers()) {
                if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
                // FP16 noise of a layer (a small batch-norm layer's backward cancels: tens of percent on either
                // path) shows in the emulation at some batch sizes and not others: the layer's worst over the sizes
                double emulation = 0;
                for (Errors[] e : errors) emulation = Math.max(emulation, e[l.index()].emulation());
                Tolerance tol = LayerParityCases.inNetwork(LayerParityCases.tolerance(l.kind(), precision),
                        precision);
                double allowed = mixed ? 2 * emulation + tol.backward() : tol.backward();
                for (int k = 0; k < sizes.length; k++) {
                    Errors e = errors[k][l.index()];
                    boolean pass = e.forward() <= tol.forward() && e.backward() <= allowed;
                    String row = row(l.kind(), name + " layer " + l.index(), sizes[k], precision, e.forward(),
                            e.backward(), tol.forward(), allowed, pass);
                    rows.add(row);
                    if (!pass) failures.add(row);
                }
            }
        }
        System.out.println(HEADER);
        rows.forEach(System.out::println);
        assertTrue(failures.isEmpty(), HEADER + "\n" + String.join("\n", failures));
    }
}
