package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Backend parity, layer by layer (as ggml's test-backend-ops): small networks that use every layer kind and option
 * the backend handles (six activations, strided and grouped convolutions, channel counts that are not multiples of
 * 8, four maxpool geometries, upsample by 2 and by 3 with a scale, grouped, nested, 3-input and unaligned routes,
 * a fused and an unfused shortcut, both [yolo] coordinate kinds), FP16 GPU vs FP32 CPU on the same random input,
 * in three builds: everything fused and in place; our own epilogue, shortcut and copy kernels; fused epilogue
 * without CUDA graphs; and the first layer on the direct kernel. Every layer's output must be within 1e-2 relative
 * L2, at the largest batch and at batch 1.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuLayerParityTest {
    static final String A = """
            [net]
            width=64
            height=64
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
            filters=24
            size=3
            stride=2
            pad=1
            activation=mish

            [maxpool]
            size=2
            stride=2

            [convolutional]
            batch_normalize=1
            filters=48
            size=1
            stride=1
            pad=1
            activation=swish

            [route]
            layers=-1
            groups=2
            group_id=1

            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=relu

            [route]
            layers=-1,-3

            [convolutional]
            batch_normalize=1
            filters=64
            size=3
            stride=1
            pad=1
            activation=logistic

            [shortcut]
            from=-2
            activation=leaky

            [maxpool]
            size=3
            stride=1

            [maxpool]
            size=5
            stride=1

            [route]
            layers=-1,-2,-3

            [route]
            layers=-1,-2

            [convolutional]
            batch_normalize=1
            filters=32
            size=1
            stride=1
            pad=1
            groups=2
            activation=leaky

            [upsample]
            stride=2

            [route]
            layers=-1,1

            [convolutional]
            filters=255
            size=1
            stride=1
            pad=1
            activation=linear

            [yolo]
            mask=0,1,2
            anchors=10,14, 23,27, 37,58, 81,82, 135,169, 344,319
            classes=80
            num=6
            scale_x_y=1.05
            """;

    static final String B = """
            [net]
            width=48
            height=48
            channels=3
            letter_box=1

            [convolutional]
            filters=8
            size=3
            stride=2
            pad=1
            activation=leaky

            [convolutional]
            batch_normalize=1
            filters=12
            size=3
            stride=1
            pad=1
            activation=linear

            [maxpool]
            size=2
            stride=1

            [upsample]
            stride=3
            scale=0.5

            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=3
            pad=1
            activation=swish

            [route]
            layers=-1,1

            [convolutional]
            batch_normalize=1
            filters=32
            size=3
            stride=1
            pad=1
            activation=mish

            [convolutional]
            batch_normalize=1
            filters=32
            size=1
            stride=1
            pad=1
            activation=leaky

            [shortcut]
            from=-2
            activation=linear

            [route]
            layers=-1,-2,-3

            [convolutional]
            filters=21
            size=1
            stride=1
            pad=1
            activation=logistic

            [yolo]
            mask=0,1,2
            anchors=10,13, 16,30, 33,23
            classes=2
            num=3
            new_coords=1
            scale_x_y=2.0
            """;

    /** A strided first layer whose filters (30) are padded to 32, over an odd width and height. */
    static final String C = """
            [net]
            width=43
            height=37
            channels=3

            [convolutional]
            batch_normalize=1
            filters=30
            size=3
            stride=2
            pad=1
            activation=swish

            [convolutional]
            filters=16
            size=1
            stride=1
            pad=0
            activation=logistic
            """;

    /**
     * yolov4-tiny's narrow early block over odd sizes: 3x3 stride 2 from 32 channels and from 64, 3x3 stride 1 from 64
     * and from a grouped route's second half (a view at channel offset 32), 1x1 into a route's slice (in place), 16
     * input channels, padded filters (30 of 32), and activations whose value at zero is not zero (logistic).
     */
    static final String D = """
            [net]
            width=45
            height=39
            channels=3

            [convolutional]
            batch_normalize=1
            filters=32
            size=3
            stride=2
            pad=1
            activation=leaky

            [convolutional]
            batch_normalize=1
            filters=64
            size=3
            stride=2
            pad=1
            activation=leaky

            [convolutional]
            batch_normalize=1
            filters=64
            size=3
            stride=1
            pad=1
            activation=mish

            [route]
            layers=-1
            groups=2
            group_id=1

            [convolutional]
            batch_normalize=1
            filters=32
            size=3
            stride=1
            pad=1
            activation=logistic

            [convolutional]
            batch_normalize=1
            filters=32
            size=3
            stride=1
            pad=1
            activation=swish

            [route]
            layers=-1,-2

            [convolutional]
            batch_normalize=1
            filters=64
            size=1
            stride=1
            pad=1
            activation=leaky

            [route]
            layers=-6,-1

            [route]
            layers=2

            [convolutional]
            batch_normalize=1
            filters=30
            size=3
            stride=2
            pad=1
            activation=logistic

            [convolutional]
            filters=16
            size=1
            stride=1
            pad=1
            activation=relu

            [convolutional]
            batch_normalize=1
            filters=32
            size=3
            stride=1
            pad=1
            activation=linear
            """;

    /** A 5x5 first layer: the direct kernel's form for filters other than 3x3 (the taps read one by one). */
    static final String E = """
            [net]
            width=33
            height=29
            channels=3

            [convolutional]
            batch_normalize=1
            filters=16
            size=5
            stride=1
            pad=1
            activation=leaky

            [convolutional]
            filters=32
            size=3
            stride=2
            pad=1
            activation=linear
            """;

    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    static Stream<Arguments> cases() {
        CudaOptions fused = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        CudaOptions ours = fused.withFusion(CudaOptions.Fusion.NONE).withInPlace(false);
        CudaOptions noGraphs = fused.withFusion(CudaOptions.Fusion.EPILOGUE).withGraphs(false);
        List<Arguments> out = new ArrayList<>();
        for (String[] net : new String[][] {{"A", A}, {"B", B}, {"C", C}, {"D", D}}) {
            out.add(Arguments.of(net[0], net[1], "fused+inplace+graphs", fused));
            out.add(Arguments.of(net[0], net[1], "own-kernels+copies", ours));
            out.add(Arguments.of(net[0], net[1], "epilogue-only+no-graphs", noGraphs));
        }
        // the first layer on the direct kernel whether or not it wins the timing
        CudaOptions direct = fused.withDirect(CudaOptions.DirectConvolution.ALWAYS);
        out.add(Arguments.of("A", A, "direct-first-layer", direct));
        out.add(Arguments.of("C", C, "direct-first-layer", direct));
        out.add(Arguments.of("E", E, "direct-first-layer", direct));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("cases")
    void everyLayerMatchesTheCpu(String name, String cfg, String build, CudaOptions options) {
        NetworkSpec spec = NetworkSpec.parse(Path.of("parity-" + name + ".cfg"), cfg, 0, 0);
        ModelWeights weights = RandomWeights.deep(spec, 5);
        int batch = 2;
        SplittableRandom rnd = new SplittableRandom(9);
        int size = spec.inputShape().size();
        float[][] inputs = new float[batch][size];
        for (float[] in : inputs) for (int i = 0; i < size; i++) in[i] = (float) rnd.nextDouble();
        List<String> failures = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        try (CpuNetwork cpu = new CpuNetwork(spec, weights, batch, Compare.REFERENCE);
             CudaNetwork gpu = new CudaNetwork(spec, weights, batch, options)) {
            for (int b = 0; b < batch; b++) {
                cpu.input().put(b * size, inputs[b]);
                gpu.setInput(b, inputs[b]);
            }
            cpu.forward(batch);
            gpu.forward(batch);
            compare(spec, cpu, gpu, batch, batch, table, failures);
            gpu.forward(1);   // a second batch size: its own plans and graph
            compare(spec, cpu, gpu, 1, batch, table, failures);
            System.out.println("parity " + name + " " + build + ":\n" + gpu.describe() + "\n" + table);
            if (options.direct() == CudaOptions.DirectConvolution.ALWAYS && !gpu.describe().contains("direct kernel")) {
                failures.add("the first layer did not run on the direct kernel: " + gpu.describe());
            }
        }
        assertTrue(failures.isEmpty(), name + " " + build + ": " + failures);
    }

    private static void compare(NetworkSpec spec, CpuNetwork cpu, CudaNetwork gpu, int n, int cpuBatch,
                                StringBuilder table, List<String> failures) {
        for (LayerSpec l : spec.layers()) {
            int size = l.output().size();
            double worst = 0;
            boolean skipped = false;
            for (int b = 0; b < n; b++) {
                float[] g = gpu.layerOutput(l.index(), b);
                if (g == null) {
                    skipped = true;
                    continue;
                }
                float[] c = cpu.outputImage(l.index(), b);
                worst = Math.max(worst, Compare.relativeL2(g, c));
            }
            table.append(String.format(Locale.ROOT, "  batch %d layer %2d %-14s %s%n", n, l.index(), l.kind(),
                    skipped ? "fused away" : String.format(Locale.ROOT, "rel L2 %.2e", worst)));
            if (!(worst <= 1e-2)) failures.add("batch " + n + " layer " + l.index() + " " + l.kind() + " rel L2 " + worst);
        }
    }
}
