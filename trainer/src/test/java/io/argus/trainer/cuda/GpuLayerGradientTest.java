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
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.nn.ConvParameters;
import io.argus.trainer.nn.TrainNetwork;
import io.argus.trainer.train.CpuTrainingBackend;
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
 * GPU against CPU, layer by layer, after one forward + YOLO loss + backward of the same batch from the same weights:
 * every layer's output and gradient, batch-norm statistics, every convolution's weight, bias and scale gradients,
 * the loss parts. Networks cover every layer kind and option the CUDA trainer takes: six activations with and
 * without batch norm, strides 1 and 2, 1x1, a grouped convolution, channel counts that are not multiples of 8;
 * maxpools 2/2, 2/1 and 3/2; grouped, concatenating (aligned and unaligned) and plain routes; shortcuts (also of a
 * layer with itself); upsample by 2 and by 3 with a scale; MSE, GIoU and CIoU heads. Strict FP32 on the GPU is
 * compared with the CPU in FP32 (every value to ~1e-5). Mixed precision: outputs, batch statistics and the loss
 * against the CPU emulating FP16; gradients against the CPU in FP32, allowed twice the error of the emulation
 * itself against FP32 (+0.05): batch-norm backward cancels in FP16, so small layers deviate by tens of percent on
 * either path (pool-route layer 17, a 1x1 batch-norm layer over 144 values: 0.37 for the emulation), and a max-pool
 * over an upsampled map (equal values side by side) may pick another winner when FP16 rounds two neighbours
 * differently (shortcut-upsample layer 5: 0.031 on the GPU, 0.003 for the emulation, on the H100). In training,
 * feature-map gradients that are never live together share bytes, and outputs no backward reads live among them
 * during the forward pass ({@link GradientPlan}): those cases compare the outputs and gradients still intact after
 * the pass and every parameter gradient (each needs the gradients of all layers after it, and the outputs their
 * forward passes read); the "keep gradients" cases give every output and gradient bytes of its own and compare all.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuLayerGradientTest {
    static final String ANCHORS = "anchors=4,4, 6,8, 9,9, 12,10, 16,16, 24,20\nclasses=2\nnum=6\n";

    static final String CONV = """
            [net]
            width=48
            height=48
            channels=3
            [convolutional]
            batch_normalize=1
            filters=12
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            activation=mish
            [convolutional]
            filters=16
            size=1
            stride=1
            pad=0
            activation=swish
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            groups=2
            activation=logistic
            [convolutional]
            batch_normalize=1
            filters=24
            size=1
            stride=1
            pad=0
            activation=relu
            [convolutional]
            batch_normalize=1
            filters=20
            size=3
            stride=2
            pad=1
            activation=linear
            [convolutional]
            filters=21
            size=1
            stride=1
            pad=0
            activation=linear
            [yolo]
            mask=3,4,5
            iou_loss=ciou
            iou_normalizer=0.07
            scale_x_y=1.05
            """ + ANCHORS;

    static final String POOL_ROUTE = """
            [net]
            width=48
            height=48
            channels=3
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=leaky
            [route]
            layers=-1
            groups=2
            group_id=1
            [convolutional]
            batch_normalize=1
            filters=8
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=8
            size=3
            stride=1
            pad=1
            activation=leaky
            [route]
            layers=-1,-2
            [convolutional]
            batch_normalize=1
            filters=16
            size=1
            stride=1
            pad=0
            activation=leaky
            [route]
            layers=-6,-1
            [maxpool]
            size=2
            stride=2
            [convolutional]
            batch_normalize=1
            filters=12
            size=3
            stride=1
            pad=1
            activation=leaky
            [route]
            layers=-1,-2
            [maxpool]
            size=2
            stride=1
            [maxpool]
            size=3
            stride=2
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            filters=21
            size=1
            stride=1
            pad=0
            activation=linear
            [yolo]
            mask=3,4,5
            iou_loss=ciou
            iou_normalizer=0.07
            """ + ANCHORS + """
            [route]
            layers=-4
            [convolutional]
            batch_normalize=1
            filters=8
            size=1
            stride=1
            pad=0
            activation=leaky
            [upsample]
            stride=2
            [route]
            layers=-1,9
            [convolutional]
            filters=21
            size=1
            stride=1
            pad=0
            activation=linear
            [yolo]
            mask=0,1,2
            iou_loss=mse
            """ + ANCHORS;

    static final String SHORTCUT_UPSAMPLE = """
            [net]
            width=32
            height=32
            channels=3
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=mish
            [shortcut]
            from=-2
            activation=linear
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            activation=leaky
            [shortcut]
            from=-1
            activation=leaky
            [upsample]
            stride=3
            scale=0.5
            [maxpool]
            size=2
            stride=2
            [convolutional]
            filters=21
            size=1
            stride=1
            pad=0
            activation=linear
            [yolo]
            mask=0,1,2
            iou_loss=giou
            """ + ANCHORS;

    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        String[][] nets = {{"conv", CONV}, {"pool-route", POOL_ROUTE}, {"shortcut-upsample", SHORTCUT_UPSAMPLE}};
        for (String[] n : nets) {
            // as training runs: gradients that are never live together share bytes, so only those not reused later in
            // the pass can be read afterwards; every parameter gradient (which needs every layer's) is compared
            out.add(Arguments.of(n[0], n[1], Precision.FP32, false, false));
            out.add(Arguments.of(n[0], n[1], Precision.MIXED, false, false));
            out.add(Arguments.of(n[0], n[1], Precision.FP32, true, false));   // sole consumers write input gradients
            // every gradient in bytes of its own: all of them compared
            out.add(Arguments.of(n[0], n[1], Precision.FP32, false, true));
        }
        return out.stream();
    }

    /** Tolerances (relative L2): outputs, feature-map gradients, parameter gradients, loss parts. */
    static double[] tolerances(Precision p) {
        return p == Precision.FP32 ? new double[] {1e-4, 2e-3, 2e-3, 1e-4} : new double[] {2e-2, 5e-2, 5e-2, 2e-2};
    }

    /** What a gradient may deviate: FP32: the tolerance; mixed: twice the emulation's own error + the tolerance. */
    static double allowed(Precision p, double emulationError, double tolerance) {
        return p == Precision.FP32 ? tolerance : 2 * emulationError + tolerance;
    }

    @ParameterizedTest(name = "{0} {2} overwrite {3} keep gradients {4}")
    @MethodSource("cases")
    void gpuMatchesTheCpu(String name, String cfg, Precision precision, boolean overwrite, boolean keep) {
        NetworkSpec spec = GpuTests.spec(name, cfg);
        int n = 4;
        ModelWeights weights = WeightsInit.darknet(spec, 7);
        TrainingBatch batch = GpuTests.batch(spec, n, 3);
        double[] tol = tolerances(precision);
        List<String> failures = new ArrayList<>();
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%s %s overwrite %s keep %s: layer, kind, "
                + "rel L2 of output, gradient (- where its bytes were reused), [weights, biases, scales gradients], "
                + "[batch mean, variance]%n", name, precision, overwrite, keep));
        int compared = 0;
        int outputs = 0;
        boolean mixed = precision == Precision.MIXED;
        try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, weights, n, 2, mixed);
             CpuTrainingBackend exact = new CpuTrainingBackend(spec, weights, n, 2, false);
             CudaTrainingBackend gpu = new CudaTrainingBackend(spec, weights, n,
                     GpuTests.options(precision, overwrite), keep)) {
            LossParts lc = cpu.forwardBackward(batch, 1f);
            LossParts lg = gpu.forwardBackward(batch, 1f);
            exact.forwardBackward(batch, 1f);
            TrainNetwork net = cpu.network();
            // gradients are compared with FP32 (the emulation's own error against FP32 sets the allowance)
            TrainNetwork ref = exact.network();
            for (LayerSpec l : spec.layers()) {
                int i = l.index();
                if (l instanceof YoloSpec) continue;
                int size = l.output().size();
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%3d %-14s", i, l.kind()));
                double out = 0, grad = 0, emu = 0, vsEmu = 0;
                for (int b : new int[] {0, n - 1}) {
                    if (gpu.network().outputKept(i)) {
                        if (b == 0) outputs++;
                        out = Math.max(out, GpuTests.relL2(gpu.network().output(i, b),
                                GpuTests.image(net.output(i), b, size)));
                    }
                    if (!(l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) && gpu.network().gradientKept(i)) {
                        if (b == 0) compared++;
                        float[] g = gpu.network().gradient(i, b);
                        float[] truth = GpuTests.image(ref.gradient(i), b, size);
                        grad = Math.max(grad, GpuTests.relL2(g, truth));
                        emu = Math.max(emu, GpuTests.relL2(GpuTests.image(net.gradient(i), b, size), truth));
                        vsEmu = Math.max(vsEmu, GpuTests.relL2(g, GpuTests.image(net.gradient(i), b, size)));
                    }
                }
                boolean kept = gpu.network().gradientKept(i);
                row.append(String.format(Locale.ROOT, " out %s grad %s",
                        gpu.network().outputKept(i) ? String.format(Locale.ROOT, "%.2e", out) : "-",
                        kept ? String.format(Locale.ROOT, "%.2e", grad) : "-"));
                if (mixed) row.append(String.format(Locale.ROOT, " (emulation %.2e, gpu vs emulation %.2e)", emu, vsEmu));
                check(failures, "layer " + i + " output", out, tol[0]);
                check(failures, "layer " + i + " gradient", grad, allowed(precision, emu, tol[1]));
                if (l instanceof ConvolutionalSpec c) {
                    ConvParameters p = ref.parameters().get(i);
                    ConvParameters e = net.parameters().get(i);
                    float[][] g = gpu.parameterGradients(i);
                    float[] tw = GpuTests.copy(p.weights().gradient(), p.weights().size());
                    float[] tb = GpuTests.copy(p.biases().gradient(), p.biases().size());
                    float[] ts = c.batchNormalize() ? GpuTests.copy(p.scales().gradient(), p.scales().size()) : null;
                    double dw = GpuTests.relL2(g[0], tw);
                    double db = GpuTests.relL2(g[1], tb);
                    double ds = ts != null ? GpuTests.relL2(g[2], ts) : 0;
                    double ew = GpuTests.relL2(GpuTests.copy(e.weights().gradient(), e.weights().size()), tw);
                    double eb = GpuTests.relL2(GpuTests.copy(e.biases().gradient(), e.biases().size()), tb);
                    double es = ts != null ? GpuTests.relL2(GpuTests.copy(e.scales().gradient(), e.scales().size()), ts) : 0;
                    row.append(String.format(Locale.ROOT, " dW %.2e db %.2e ds %.2e", dw, db, ds));
                    if (mixed) row.append(String.format(Locale.ROOT, " (emulation %.2e %.2e %.2e)", ew, eb, es));
                    check(failures, "layer " + i + " weight gradient", dw, allowed(precision, ew, tol[2]));
                    check(failures, "layer " + i + " bias gradient", db, allowed(precision, eb, tol[2]));
                    check(failures, "layer " + i + " scale gradient", ds, allowed(precision, es, tol[2]));
                    if (c.batchNormalize()) {
                        float[][] sc = net.batchStatistics(i);
                        float[][] sg = gpu.network().batchStatistics(i);
                        double m = GpuTests.relL2(sg[0], sc[0]);
                        double v = GpuTests.relL2(sg[1], sc[1]);
                        row.append(String.format(Locale.ROOT, " mean %.2e var %.2e", m, v));
                        check(failures, "layer " + i + " batch mean", m, tol[0]);
                        check(failures, "layer " + i + " batch variance", v, tol[0]);
                    }
                }
                table.append(row).append('\n');
            }
            table.append(String.format(Locale.ROOT, "loss cpu %s%nloss gpu %s%n", lc, lg));
            check(failures, "box loss", GpuTests.relative(lg.box(), lc.box()), tol[3]);
            check(failures, "objectness loss", GpuTests.relative(lg.objectness(), lc.objectness()), tol[3]);
            check(failures, "class loss", GpuTests.relative(lg.classification(), lc.classification()), tol[3]);
            check(failures, "assigned truths", lg.assigned() == lc.assigned() ? 0 : 1, 0.5);
            table.append(String.format(Locale.ROOT, "outputs compared: %d, feature-map gradients compared: %d, of %d "
                    + "layers%n", outputs, compared, spec.layers().size()));
            if (keep && compared != (int) spec.layers().stream().filter(GradientPlan::hasTensor).count()) {
                failures.add("keep gradients: only " + compared + " layer gradients readable");
            }
            if (keep && outputs != (int) spec.layers().stream().filter(l -> !(l instanceof YoloSpec)).count()) {
                failures.add("keep gradients: only " + outputs + " layer outputs readable");
            }
        }
        System.out.print(table);
        assertTrue(failures.isEmpty(), name + " " + precision + ": " + failures + "\n" + table);
    }

    static void check(List<String> failures, String what, double error, double tolerance) {
        if (!(error <= tolerance)) failures.add(String.format(Locale.ROOT, "%s %.3e > %.1e", what, error, tolerance));
    }
}
