package io.argus.trainer.nn;

import static io.argus.trainer.nn.ConvolutionalGradientTest.conv;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.optim.ParameterTensor;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every layer kind of CPU training, forward and backward, against a plain Java reference of Darknet's math (the
 * formulas of the Java layers that oneDNN's primitives replaced: direct convolution, batch norm with the batch's
 * statistics and the variance over n-1, the activations' derivatives, max pooling's first winner, route slices,
 * shortcut, nearest upsampling times its scale), in double. Each case runs a small network whose last layer is the
 * kind under test, seeds dLoss/dOutput of the last layer with random values, and compares: the layer's output, the
 * gradient it hands to each input (where two readers share a gradient, the sum the reference gives), and a
 * convolution's weight, bias and scale gradients and batch statistics. The layers before the one under test are linear
 * convolutions without batch norm, whose own backward leaves their output gradient as it was handed to them. The finite-difference tests check that
 * backward is the derivative of forward; this one checks that forward is Darknet's. Budget: 10 s.
 */
@Budget(seconds = 5)
class TrainingLayersMatchReferenceTest {
    private static final int BATCH = 3;
    private static final double TOLERANCE = 2e-5;   // largest |difference| over the largest |reference value|

    @ParameterizedTest(name = "{0}")
    @CsvSource({"3x3 bn leaky,8,3,1,1,1,true,leaky", "3x3 s2 groups bn mish,6,3,2,1,2,true,mish",
            "1x1 logistic,5,1,1,0,1,false,logistic", "5x5 s2 bn swish,4,5,2,2,1,true,swish",
            "3x3 no pad relu,4,3,1,0,1,true,relu", "1x1 bn linear,4,1,1,0,1,true,linear",
            "3x3 leaky no bn,4,3,1,1,1,false,leaky"})
    void convolution(String name, int filters, int size, int stride, int pad, int groups, boolean bn, String act) {
        String cfg = net(9, 8, 4) + conv(6, 3, 1, 1, 1, false, "linear") + conv(filters, size, stride, pad, groups, bn, act);
        try (Run run = new Run(cfg, name.hashCode())) {
            ConvolutionalSpec c = (ConvolutionalSpec) run.spec.layers().get(1);
            ConvParameters p = run.net.parameters().get(1);
            Conv ref = Conv.forward(c, p, run.output(0));
            run.expect("output", ref.y, run.output(1));
            float[][] stats = run.net.batchStatistics(1);
            if (bn) {
                run.expect("batch mean", ref.mean, stats[0]);
                run.expect("batch variance", ref.variance, stats[1]);
            }
            ConvGradients g = ref.backward(run.seed);
            run.expect("input gradient", g.dx, run.gradient(0));
            run.expect("weight gradient", g.dw, values(p.weights()));
            run.expect("bias gradient", g.db, values(p.biases()));
            if (bn) run.expect("scale gradient", g.dscale, values(p.scales()));
        }
    }

    @ParameterizedTest(name = "maxpool size {0} stride {1}")
    @CsvSource({"2,2", "3,1", "2,1", "3,2"})
    void maxPool(int size, int stride) {
        String cfg = net(9, 8, 3) + conv(4, 3, 1, 1, 1, false, "linear") + "[maxpool]\nsize=" + size + "\nstride=" + stride + "\n";
        try (Run run = new Run(cfg, 31L * size + stride)) {
            MaxPoolSpec m = (MaxPoolSpec) run.spec.layers().get(1);
            float[] x = run.output(0);
            Shape in = m.input(), out = m.output();
            double[] y = new double[BATCH * out.size()];
            double[] dx = new double[BATCH * in.size()];
            for (int plane = 0; plane < BATCH * in.channels(); plane++) {
                for (int oy = 0; oy < out.height(); oy++) {
                    for (int ox = 0; ox < out.width(); ox++) {
                        int best = -1;
                        for (int yy = Math.max(0, oy * m.strideY() + m.offset()); yy < Math.min(in.height(), oy * m.strideY() + m.offset() + m.size()); yy++) {
                            for (int xx = Math.max(0, ox * m.strideX() + m.offset()); xx < Math.min(in.width(), ox * m.strideX() + m.offset() + m.size()); xx++) {
                                int i = plane * in.plane() + yy * in.width() + xx;
                                if (best < 0 || x[i] > x[best]) best = i;
                            }
                        }
                        int o = plane * out.plane() + oy * out.width() + ox;
                        y[o] = x[best];
                        dx[best] += run.seed[o];
                    }
                }
            }
            run.expect("output", y, run.output(1));
            run.expect("input gradient", dx, run.gradient(0));
        }
    }

    @Test
    void routeCopiesGroupsAndSumsTheirGradients() {
        // 0: conv (6 channels); 1: its second half; 2: [1, 0] side by side. Layer 0's gradient gets layer 2's share
        // (all channels, written first) and layer 1's (channels 3..5, added).
        String cfg = net(7, 6, 3) + conv(6, 3, 1, 1, 1, false, "linear")
                + "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n" + "[route]\nlayers=-1,-2\n";
        try (Run run = new Run(cfg, 5)) {
            float[] x = run.output(0);
            int plane = run.spec.layers().get(0).output().plane();
            double[] half = new double[BATCH * 3 * plane];
            double[] routed = new double[BATCH * 9 * plane];
            double[] dHalf = new double[half.length];
            double[] dx = new double[x.length];
            for (int b = 0; b < BATCH; b++) {
                for (int c = 0; c < 9; c++) {
                    for (int p = 0; p < plane; p++) {
                        int source = c < 3 ? (b * 6 + 3 + c) * plane + p : (b * 6 + c - 3) * plane + p;
                        routed[(b * 9 + c) * plane + p] = x[source];
                        double g = run.seed[(b * 9 + c) * plane + p];
                        if (c < 3) dHalf[(b * 3 + c) * plane + p] = g;
                        dx[source] += g;   // through layer 1 for c < 3, directly for the others
                    }
                }
                for (int c = 0; c < 3; c++) {
                    for (int p = 0; p < plane; p++) half[(b * 3 + c) * plane + p] = x[(b * 6 + 3 + c) * plane + p];
                }
            }
            run.expect("group output", half, run.output(1));
            run.expect("route output", routed, run.output(2));
            run.expect("group gradient", dHalf, run.gradient(1));
            run.expect("input gradient (both readers)", dx, run.gradient(0));
        }
    }

    @ParameterizedTest(name = "shortcut {0}")
    @CsvSource({"linear", "leaky", "mish", "logistic"})
    void shortcutAddsAndHandsTheGradientToBoth(String act) {
        // 0: conv; 1: conv of 0; 2: 1 + 0. Layer 0's gradient: the shortcut's share plus layer 1's input gradient.
        String cfg = net(6, 5, 3) + conv(4, 3, 1, 1, 1, false, "linear") + conv(4, 3, 1, 1, 1, false, "linear")
                + "[shortcut]\nfrom=-2\nactivation=" + act + "\n";
        try (Run run = new Run(cfg, act.hashCode())) {
            ShortcutSpec s = (ShortcutSpec) run.spec.layers().get(2);
            float[] a = run.output(1), b = run.output(0);
            double[] y = new double[a.length];
            double[] dz = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                double z = (double) a[i] + b[i];
                y[i] = s.activation().apply((float) z);
                dz[i] = run.seed[i] * derivative(s.activation(), z);
            }
            run.expect("output", y, run.output(2));
            run.expect("gradient to the previous layer", dz, run.gradient(1));
            Conv second = Conv.forward((ConvolutionalSpec) run.spec.layers().get(1), run.net.parameters().get(1), b);
            double[] throughSecond = second.backward(toFloats(dz)).dx;
            double[] dx = new double[b.length];
            for (int i = 0; i < dx.length; i++) dx[i] = dz[i] + throughSecond[i];
            run.expect("gradient to layer from (both readers)", dx, run.gradient(0));
        }
    }

    @ParameterizedTest(name = "upsample stride {0} scale {1}")
    @CsvSource({"2,1", "3,0.5"})
    void upsample(int stride, float scale) {
        String cfg = net(5, 4, 3) + conv(4, 3, 1, 1, 1, false, "linear")
                + String.format(Locale.ROOT, "[upsample]\nstride=%d\nscale=%s\n", stride, scale);
        try (Run run = new Run(cfg, stride)) {
            UpsampleSpec u = (UpsampleSpec) run.spec.layers().get(1);
            float[] x = run.output(0);
            Shape in = u.input(), out = u.output();
            double[] y = new double[BATCH * out.size()];
            double[] dx = new double[x.length];
            for (int plane = 0; plane < BATCH * in.channels(); plane++) {
                for (int oy = 0; oy < out.height(); oy++) {
                    for (int ox = 0; ox < out.width(); ox++) {
                        int i = plane * in.plane() + (oy / stride) * in.width() + ox / stride;
                        int o = plane * out.plane() + oy * out.width() + ox;
                        y[o] = scale * x[i];
                        dx[i] += scale * run.seed[o];
                    }
                }
            }
            run.expect("output", y, run.output(1));
            run.expect("input gradient", dx, run.gradient(0));
        }
    }

    @Test
    void yoloHandsTheLossGradientBack() {
        String cfg = net(8, 8, 3) + conv(21, 1, 1, 0, 1, false, "linear")
                + "[yolo]\nmask=0,1,2\nanchors=2,2, 3,4, 5,5\nclasses=2\nnum=3\nscale_x_y=1.05\n";
        try (Run run = new Run(cfg, 3)) {
            List<List<Truth>> truths = List.of(List.of(new Truth(0.3f, 0.4f, 0.2f, 0.3f, 1)),
                    List.of(new Truth(0.6f, 0.5f, 0.4f, 0.2f, 0)), List.of());
            run.net.loss(BATCH, truths, 4f);
            run.net.backward(BATCH);
            int count = BATCH * run.spec.layers().get(1).output().size();
            float[] loss = new float[count];
            run.net.lossGradient(1).get(0, loss);
            double[] expected = new double[count];
            for (int i = 0; i < count; i++) expected[i] = loss[i];
            run.expect("conv gradient = loss gradient", expected, run.gradient(0));
        }
    }

    static String net(int w, int h, int c) { return String.format(GradientCheck.NET, w, h, c); }

    /** One forward and a seeded backward of a small network. */
    private static final class Run implements AutoCloseable {
        final NetworkSpec spec;
        final Workers workers = new Workers(2);
        final TrainContext ctx = new TrainContext(workers, false);
        final TrainNetwork net;
        final float[] seed;   // dLoss/dOutput of the last layer, NCHW

        Run(String cfg, long seed) {
            this.spec = GradientCheck.spec(cfg);
            this.net = new TrainNetwork(spec, GradientCheck.randomWeights(spec, seed), BATCH, ctx);
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = 0; i < BATCH * spec.inputShape().size(); i++) net.input().put(i, (float) rnd.nextDouble());
            net.forward(BATCH);
            LayerSpec last = spec.layers().get(spec.layers().size() - 1);
            if (last.kind().equals("yolo")) {
                this.seed = null;
                return;
            }
            this.seed = new float[BATCH * last.output().size()];
            for (int i = 0; i < this.seed.length; i++) this.seed[i] = (float) rnd.nextDouble(-1, 1);
            net.zeroGradients(BATCH);
            net.setGradient(last.index(), this.seed);
            net.backwardLayers(BATCH);
        }

        float[] output(int layer) { return array(net.output(layer)); }

        float[] gradient(int layer) { return array(net.gradient(layer)); }

        void expect(String what, double[] expected, float[] actual) {
            assertTrue(expected.length == actual.length, what + ": " + actual.length + " values, expected " + expected.length);
            double scale = 0, worst = 0;
            int at = -1;
            for (int i = 0; i < expected.length; i++) {
                scale = Math.max(scale, Math.abs(expected[i]));
                double d = Math.abs(expected[i] - actual[i]);
                if (d > worst) {
                    worst = d;
                    at = i;
                }
            }
            double relative = worst / Math.max(scale, 1e-12);
            assertTrue(relative <= TOLERANCE, String.format(Locale.ROOT, "%s: largest difference %.3g at %d (%.6g vs "
                    + "reference %.6g), %.3g of the largest value %.3g", what, worst, at, at < 0 ? 0 : actual[at],
                    at < 0 ? 0 : expected[at], relative, scale));
        }

        void expect(String what, double[] expected, java.nio.FloatBuffer actual) {
            float[] a = new float[expected.length];
            actual.get(0, a);
            expect(what, expected, a);
        }

        void expect(String what, double[] expected, double[] actual) { expect(what, expected, toFloats(actual)); }

        void expect(String what, float[] expected, float[] actual) {
            double[] e = new double[expected.length];
            for (int i = 0; i < e.length; i++) e[i] = expected[i];
            expect(what, e, actual);
        }

        @Override
        public void close() {
            net.close();
            ctx.close();
            workers.close();
        }
    }

    private static float[] array(java.nio.FloatBuffer b) {
        float[] a = new float[b.remaining()];
        b.get(0, a);
        return a;
    }

    private static float[] toFloats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) f[i] = (float) d[i];
        return f;
    }

    private static java.nio.FloatBuffer values(ParameterTensor t) { return t.gradient(); }

    /** d act / d input at {@code x}. */
    static double derivative(Activation act, double x) {
        return switch (act) {
            case LINEAR -> 1;
            case LEAKY -> x > 0 ? 1 : 0.1;
            case RELU -> x > 0 ? 1 : 0;
            case LOGISTIC -> {
                double s = 1 / (1 + Math.exp(-x));
                yield s * (1 - s);
            }
            case MISH, SWISH -> act.derivative((float) x);
        };
    }

    /** A convolution's forward in Darknet's math, kept for its backward. */
    private static final class Conv {
        final ConvolutionalSpec c;
        final ConvParameters p;
        final float[] x;
        double[] z, xhat, a, y;
        double[] mean, variance;

        private Conv(ConvolutionalSpec c, ConvParameters p, float[] x) {
            this.c = c;
            this.p = p;
            this.x = x;
        }

        static Conv forward(ConvolutionalSpec c, ConvParameters p, float[] x) {
            Conv k = new Conv(c, p, x);
            k.run();
            return k;
        }

        private int in(int b, int ch, int iy, int ix) {
            Shape s = c.input();
            return ((b * s.channels() + ch) * s.height() + iy) * s.width() + ix;
        }

        private void run() {
            Shape out = c.output(), in = c.input();
            int per = c.filters() / c.groups(), cg = c.groupChannels(), k = c.size();
            float[] w = p.weights().master();
            z = new double[BATCH * out.size()];
            for (int b = 0; b < BATCH; b++) {
                for (int f = 0; f < c.filters(); f++) {
                    int g = f / per;
                    for (int oy = 0; oy < out.height(); oy++) {
                        for (int ox = 0; ox < out.width(); ox++) {
                            double sum = 0;
                            for (int ch = 0; ch < cg; ch++) {
                                for (int ky = 0; ky < k; ky++) {
                                    int iy = oy * c.strideY() + ky - c.pad();
                                    if (iy < 0 || iy >= in.height()) continue;
                                    for (int kx = 0; kx < k; kx++) {
                                        int ix = ox * c.strideX() + kx - c.pad();
                                        if (ix < 0 || ix >= in.width()) continue;
                                        sum += (double) w[((f * cg + ch) * k + ky) * k + kx] * x[in(b, g * cg + ch, iy, ix)];
                                    }
                                }
                            }
                            z[((b * c.filters() + f) * out.height() + oy) * out.width() + ox] = sum;
                        }
                    }
                }
            }
            int plane = out.plane();
            a = new double[z.length];
            y = new double[z.length];
            float[] bias = p.biases().master();
            if (c.batchNormalize()) {
                float[] gamma = p.scales().master();
                mean = new double[c.filters()];
                variance = new double[c.filters()];
                xhat = new double[z.length];
                int m = BATCH * plane;
                for (int f = 0; f < c.filters(); f++) {
                    double s = 0, ss = 0;
                    for (int b = 0; b < BATCH; b++) for (int q = 0; q < plane; q++) s += z[(b * c.filters() + f) * plane + q];
                    mean[f] = s / m;
                    for (int b = 0; b < BATCH; b++) {
                        for (int q = 0; q < plane; q++) ss += Math.pow(z[(b * c.filters() + f) * plane + q] - mean[f], 2);
                    }
                    variance[f] = ss / (m - 1);
                    double inv = 1 / Math.sqrt(variance[f] + ConvWeights.BN_EPSILON);
                    for (int b = 0; b < BATCH; b++) {
                        for (int q = 0; q < plane; q++) {
                            int i = (b * c.filters() + f) * plane + q;
                            xhat[i] = (z[i] - mean[f]) * inv;
                            a[i] = gamma[f] * xhat[i] + bias[f];
                        }
                    }
                }
            } else {
                for (int i = 0; i < z.length; i++) a[i] = z[i] + bias[(i / plane) % c.filters()];
            }
            for (int i = 0; i < a.length; i++) y[i] = c.activation().apply((float) a[i]);
        }

        ConvGradients backward(float[] dy) {
            Shape out = c.output(), in = c.input();
            int plane = out.plane(), per = c.filters() / c.groups(), cg = c.groupChannels(), k = c.size();
            ConvGradients g = new ConvGradients();
            double[] dz = new double[a.length];
            for (int i = 0; i < a.length; i++) dz[i] = dy[i] * derivative(c.activation(), a[i]);
            g.db = new double[c.filters()];
            for (int i = 0; i < dz.length; i++) g.db[(i / plane) % c.filters()] += dz[i];
            if (c.batchNormalize()) {
                float[] gamma = p.scales().master();
                g.dscale = new double[c.filters()];
                int m = BATCH * plane;
                for (int f = 0; f < c.filters(); f++) {
                    double sumDz = 0, sumDzXhat = 0;
                    for (int b = 0; b < BATCH; b++) {
                        for (int q = 0; q < plane; q++) {
                            int i = (b * c.filters() + f) * plane + q;
                            sumDz += dz[i];
                            sumDzXhat += dz[i] * xhat[i];
                        }
                    }
                    g.dscale[f] = sumDzXhat;
                    double inv = 1 / Math.sqrt(variance[f] + ConvWeights.BN_EPSILON);
                    for (int b = 0; b < BATCH; b++) {
                        for (int q = 0; q < plane; q++) {
                            int i = (b * c.filters() + f) * plane + q;
                            dz[i] = inv * (gamma[f] * dz[i] - gamma[f] * sumDz / m - xhat[i] * gamma[f] * sumDzXhat / (m - 1));
                        }
                    }
                }
            }
            float[] w = p.weights().master();
            g.dw = new double[w.length];
            g.dx = new double[x.length];
            for (int b = 0; b < BATCH; b++) {
                for (int f = 0; f < c.filters(); f++) {
                    int grp = f / per;
                    for (int oy = 0; oy < out.height(); oy++) {
                        for (int ox = 0; ox < out.width(); ox++) {
                            double d = dz[((b * c.filters() + f) * out.height() + oy) * out.width() + ox];
                            for (int ch = 0; ch < cg; ch++) {
                                for (int ky = 0; ky < k; ky++) {
                                    int iy = oy * c.strideY() + ky - c.pad();
                                    if (iy < 0 || iy >= in.height()) continue;
                                    for (int kx = 0; kx < k; kx++) {
                                        int ix = ox * c.strideX() + kx - c.pad();
                                        if (ix < 0 || ix >= in.width()) continue;
                                        int wi = ((f * cg + ch) * k + ky) * k + kx;
                                        int xi = in(b, grp * cg + ch, iy, ix);
                                        g.dw[wi] += d * x[xi];
                                        g.dx[xi] += d * w[wi];
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return g;
        }
    }

    private static final class ConvGradients {
        double[] dx, dw, db, dscale;
    }
}
