package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Our Winograd convolution in a network, through oneDNN's products: forced on a layer it writes what oneDNN's direct
 * convolution writes (winograd: off) for every activation (leaky and relu in our output transform; logistic, mish and
 * swish by a oneDNN primitive after it), for two images, partial tiles and no padding; it is used only where it
 * applies; in auto it is timed with oneDNN's candidates under its own key; and a forced tile outside FP32 is refused.
 */
@Budget(seconds = 5)
class WinogradConvolutionTest {
    static String cfg(int channels, int height, int width, int filters, String activation, int pad, String more) {
        return "[net]\nwidth=" + width + "\nheight=" + height + "\nchannels=" + channels + "\n"
                + "[convolutional]\nbatch_normalize=1\nfilters=" + filters + "\nsize=3\nstride=1\n"
                + (pad == 1 ? "pad=1\n" : "padding=" + pad + "\n") + "activation=" + activation + "\n" + more;
    }

    /** Relative L2 of the last layer's output, winograd {@code policy} against off, both images. */
    static double againstDirect(String cfg, WinogradPolicy policy, long seed) {
        NetworkSpec spec = NetworkSpec.parse(Path.of("one-layer.cfg"), cfg, 0, 0);
        int last = spec.layers().size() - 1;
        float[][] outputs = new float[2][];
        WinogradPolicy[] both = {WinogradPolicy.OFF, policy};
        for (int v = 0; v < 2; v++) {
            CpuOptions options = new CpuOptions(CpuPrecision.FP32, true, null).withWinograd(both[v]);
            try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 2, options)) {
                SplittableRandom r = new SplittableRandom(seed);
                for (int i = 0; i < 2 * spec.inputShape().size(); i++) net.input().put(i, (float) r.nextDouble());
                net.forward(2);
                float[] a = net.outputImage(last, 0);
                float[] b = net.outputImage(last, 1);
                outputs[v] = new float[a.length + b.length];
                System.arraycopy(a, 0, outputs[v], 0, a.length);
                System.arraycopy(b, 0, outputs[v], a.length, b.length);
                if (v == 1) {
                    for (CpuNetwork.ConvolutionChoice c : net.convolutionChoices(2)) {
                        boolean eligible = c.shape().equals("3x3/1");
                        assertEquals(eligible, c.implementation().equals("winograd|argus-" + policy.label()),
                                "layer " + c.layer() + " " + c.shape() + ": " + c.implementation());
                        if (eligible) {
                            assertTrue(c.timesMs().isEmpty(), "forced, not timed: " + c);
                            String products = ((ConvolutionalLayer) net.layer(c.layer())).winogradProducts(2);
                            // oneDNN's reference matmul is a thousand times slower than its brgemm one
                            assertFalse(products.startsWith("ref"), "the products run on " + products);
                        }
                    }
                }
            }
        }
        return Bf16AgreementTest.relativeL2(outputs[1], outputs[0]);
    }

    @Test
    void forcedItWritesWhatTheDirectConvolutionWrites() {
        String[] activations = {"leaky", "linear", "relu", "logistic", "mish", "swish"};
        for (WinogradPolicy policy : List.of(WinogradPolicy.F2X2, WinogradPolicy.F4X4)) {
            double worst = 0;
            for (int i = 0; i < activations.length; i++) {
                // 37 channels (not a multiple of a vector), 19x23: partial tiles at the right and the bottom
                double err = againstDirect(cfg(37, 19, 23, 24, activations[i], 1, ""), policy, i);
                worst = Math.max(worst, err);
                assertTrue(err <= 1e-5, policy + " " + activations[i] + ": relative L2 " + err);
            }
            // no padding (output 10x14), 3 input channels like a first layer, then a stride-2 layer it leaves alone
            double err = againstDirect(cfg(3, 12, 16, 32, "leaky", 0,
                    "[convolutional]\nfilters=16\nsize=3\nstride=2\npad=1\nactivation=leaky\n"), policy, 9);
            worst = Math.max(worst, err);
            assertTrue(err <= 1e-5, policy + " no padding: relative L2 " + err);
            System.out.printf(Locale.ROOT, "winograd %s against oneDNN direct, one layer: worst relative L2 %.2e%n",
                    policy.label(), worst);
        }
    }

    /**
     * A batch whose V or M would pass the workspace bound runs in passes of as many images as fit (the last with fewer):
     * each image's output is what the whole batch at once writes, and what oneDNN's direct convolution writes.
     */
    @Test
    void aLargeBatchRunsInPassesThatWriteWhatOnePassWrites() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("one-layer.cfg"), cfg(16, 20, 20, 24, "leaky", 1, ""), 0, 0);
        int n = 5;
        float[][] outputs = new float[3][];
        String[] passes = new String[3];
        long bound = WinogradConvolution.maxWorkspaceFloats;
        try {
            for (int v = 0; v < 3; v++) {
                // F(4x4): 36 products of 25 tiles x 24 channels per image = 21,600 floats; 2 images fit 50,000
                WinogradConvolution.maxWorkspaceFloats = v == 1 ? 50_000 : bound;
                CpuOptions options = new CpuOptions(CpuPrecision.FP32, true, null)
                        .withWinograd(v == 2 ? WinogradPolicy.OFF : WinogradPolicy.F4X4);
                try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), n, options)) {
                    SplittableRandom r = new SplittableRandom(5);
                    for (int i = 0; i < n * spec.inputShape().size(); i++) net.input().put(i, (float) r.nextDouble());
                    net.forward(n);
                    int size = spec.layers().get(0).output().size();
                    outputs[v] = new float[n * size];
                    for (int b = 0; b < n; b++) System.arraycopy(net.outputImage(0, b), 0, outputs[v], b * size, size);
                    if (v < 2) passes[v] = ((ConvolutionalLayer) net.layer(0)).winogradPasses(n);
                }
            }
        } finally {
            WinogradConvolution.maxWorkspaceFloats = bound;
        }
        assertEquals("5 x 1", passes[0]);
        assertEquals("2 x 3", passes[1], "passes of 2, 2 and 1 images");
        assertEquals(0.0, Bf16AgreementTest.relativeL2(outputs[1], outputs[0]), 1e-7, "passes against one pass");
        double direct = Bf16AgreementTest.relativeL2(outputs[1], outputs[2]);
        assertTrue(direct <= 1e-5, "against oneDNN direct: relative L2 " + direct);
    }

    @Test
    void inAutoItIsTimedWithOneDnnsCandidatesUnderItsOwnKey() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("one-layer.cfg"), cfg(32, 49, 47, 32, "leaky", 1, ""), 0, 0);
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1)) {
            net.forward(1);
            CpuNetwork.ConvolutionChoice c = net.convolutionChoices(1).get(0);
            assertTrue(c.timesMs().containsKey("winograd|argus-f2x2"), c.timesMs().toString());
            assertTrue(c.timesMs().containsKey("winograd|argus-f4x4"), c.timesMs().toString());
            assertTrue(c.timesMs().size() >= 3, "oneDNN's candidates timed too: " + c.timesMs());
            double fastest = c.timesMs().values().stream().filter(t -> !t.isNaN()).mapToDouble(t -> t).min().orElseThrow();
            assertEquals(fastest, c.timesMs().get(c.implementation()), "the fastest is kept: " + c);
        }
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1,
                CpuOptions.DEFAULTS.withWinograd(WinogradPolicy.OFF))) {
            net.forward(1);
            CpuNetwork.ConvolutionChoice c = net.convolutionChoices(1).get(0);
            assertFalse(c.timesMs().keySet().stream().anyMatch(k -> k.contains("argus")), "off: " + c.timesMs());
        }
    }

    @Test
    void forcedOutsideFp32IsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CpuOptions(CpuPrecision.BF16, true, null).withWinograd(WinogradPolicy.F2X2));
        assertEquals("CPU winograd f2x2 is FP32 only; precision is bf16 (use winograd: auto or off)", e.getMessage());
        assertEquals(WinogradPolicy.F4X4, WinogradPolicy.parse(" F4x4 "));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> WinogradPolicy.parse("f6x6"));
        assertEquals("expected auto, off, f2x2 or f4x4, found \"f6x6\"", bad.getMessage());
    }
}
