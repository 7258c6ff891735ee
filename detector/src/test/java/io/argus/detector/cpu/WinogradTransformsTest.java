package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.Activation;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Our Winograd transforms without oneDNN: the published matrices compute the 1-D correlation exactly (in double);
 * the Java transforms with a plain triple loop for the products give a 3x3 stride-1 convolution equal to a direct one
 * computed in double, on shapes that end in partial tiles, with zero padding 0, 1 and 2, one channel to 37, two images,
 * with the bias and the slope activations.
 */
@Budget(seconds = 5)
class WinogradTransformsTest {
    @Test
    void theMatricesComputeTheCorrelationExactly() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (WinogradTile t : WinogradTile.values()) {
            int a = t.inputs;
            assertEquals(t.outputs + 2, a);
            assertEquals(a, t.inputTransform.length);
            assertEquals(a, t.filterTransform.length);
            assertEquals(t.outputs, t.outputTransform.length);
            for (int trial = 0; trial < 100; trial++) {
                double[] d = new double[a];
                double[] g = new double[3];
                for (int i = 0; i < a; i++) d[i] = rnd.nextDouble(-1, 1);
                for (int i = 0; i < 3; i++) g[i] = rnd.nextDouble(-1, 1);
                double[] product = new double[a];
                for (int j = 0; j < a; j++) {
                    double u = 0;
                    double v = 0;
                    for (int k = 0; k < 3; k++) u += t.filterTransform[j][k] * g[k];
                    for (int k = 0; k < a; k++) v += t.inputTransform[j][k] * d[k];
                    product[j] = u * v;
                }
                for (int i = 0; i < t.outputs; i++) {
                    double y = 0;
                    for (int j = 0; j < a; j++) y += t.outputTransform[i][j] * product[j];
                    double direct = g[0] * d[i] + g[1] * d[i + 1] + g[2] * d[i + 2];
                    assertEquals(direct, y, 1e-12, t + " output " + i);
                }
            }
        }
    }

    record Case(int images, int height, int width, int channels, int filters, int pad, Activation act) {}

    @Test
    void transformsAndProductsGiveTheDirectConvolution() {
        Case[] cases = {
            new Case(1, 8, 8, 4, 5, 1, Activation.LINEAR),
            new Case(2, 13, 11, 37, 6, 1, Activation.LEAKY),    // partial tiles in both directions
            new Case(1, 7, 9, 3, 16, 0, Activation.RELU),      // no padding: output 5x7
            new Case(1, 5, 6, 1, 3, 2, Activation.LEAKY),      // padding 2: output 7x8
            new Case(2, 26, 26, 32, 16, 1, Activation.LEAKY),
        };
        for (WinogradTile tile : WinogradTile.values()) {
            double worst = 0;
            for (Case c : cases) {
                double err = relativeError(tile, c, 17);
                worst = Math.max(worst, err);
                assertTrue(err < (tile == WinogradTile.F2X2 ? 1e-6 : 1e-5), tile + " " + c + ": relative L2 " + err);
            }
            System.out.printf(Locale.ROOT, "%s against direct in double: worst relative L2 %.2e%n", tile, worst);
        }
    }

    @Test
    void aShapeThatIsNotAThreeByThreeStrideOneConvolutionIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new WinogradTransforms(WinogradTile.F2X2, 1, 8, 8, 4, 4, 4, 4, 1, Activation.LINEAR));
        assertTrue(e.getMessage().contains("maps 8x8 to 8x8, not 4x4"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> WinogradTransforms.filters(WinogradTile.F2X2, new float[10], 2, 2));
    }

    /** Our transforms (+ a plain product loop) against a direct convolution in double: relative L2 error. */
    static double relativeError(WinogradTile tile, Case c, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int oh = c.height + 2 * c.pad - 2;
        int ow = c.width + 2 * c.pad - 2;
        float[] in = new float[c.images * c.height * c.width * c.channels];   // NHWC
        float[] w = new float[c.filters * c.channels * 9];                      // Darknet [K][C][3][3]
        float[] bias = new float[c.filters];
        for (int i = 0; i < in.length; i++) in[i] = (float) rnd.nextDouble(-1, 1);
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextDouble(-1, 1);
        for (int i = 0; i < bias.length; i++) bias[i] = (float) rnd.nextDouble(-0.5, 0.5);

        WinogradTransforms t = new WinogradTransforms(tile, c.images, c.height, c.width, c.channels, oh, ow, c.filters,
                c.pad, c.act);
        int p = tile.products();
        float[] u = WinogradTransforms.filters(tile, w, c.filters, c.channels);
        FloatBuffer v = FloatBuffer.allocate(p * t.tiles * c.channels);
        FloatBuffer m = FloatBuffer.allocate(p * t.tiles * c.filters);
        FloatBuffer out = FloatBuffer.allocate(c.images * oh * ow * c.filters);
        WinogradTransforms.Staging s = new WinogradTransforms.Staging();
        t.reserve(s);
        // two ranges, as two threads would take them
        t.inputRows(FloatBuffer.wrap(in), v, s, 0, t.tileRows / 2);
        t.inputRows(FloatBuffer.wrap(in), v, s, t.tileRows / 2, t.tileRows);
        for (int q = 0; q < p; q++) {
            for (int i = 0; i < t.tiles; i++) {
                for (int k = 0; k < c.filters; k++) {
                    double sum = 0;
                    for (int ch = 0; ch < c.channels; ch++) {
                        sum += (double) v.get((q * t.tiles + i) * c.channels + ch) * u[(q * c.channels + ch) * c.filters + k];
                    }
                    m.put((q * t.tiles + i) * c.filters + k, (float) sum);
                }
            }
        }
        t.outputRows(m, bias, out, s, 0, 1);
        t.outputRows(m, bias, out, s, 1, t.tileRows);

        double diff = 0;
        double norm = 0;
        for (int b = 0; b < c.images; b++) {
            for (int y = 0; y < oh; y++) {
                for (int x = 0; x < ow; x++) {
                    for (int k = 0; k < c.filters; k++) {
                        double sum = bias[k];
                        for (int ky = 0; ky < 3; ky++) {
                            int iy = y + ky - c.pad;
                            if (iy < 0 || iy >= c.height) continue;
                            for (int kx = 0; kx < 3; kx++) {
                                int ix = x + kx - c.pad;
                                if (ix < 0 || ix >= c.width) continue;
                                for (int ch = 0; ch < c.channels; ch++) {
                                    sum += (double) in[((b * c.height + iy) * c.width + ix) * c.channels + ch]
                                            * w[((k * c.channels + ch) * 3 + ky) * 3 + kx];
                                }
                            }
                        }
                        if (c.act == Activation.LEAKY && sum < 0) sum *= 0.1;
                        if (c.act == Activation.RELU && sum < 0) sum = 0;
                        double got = out.get(((b * oh + y) * ow + x) * c.filters + k);
                        diff += (got - sum) * (got - sum);
                        norm += sum * sum;
                    }
                }
            }
        }
        return Math.sqrt(diff / norm);
    }
}
