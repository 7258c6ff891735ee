package io.argus.trainer.nn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.trainer.optim.ParameterTensor;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Finite-difference checks of a training network: the scalar L = sum r . y of the last layer's output y against a
 * fixed random r, differentiated analytically (backward) and by central differences (in double, over the float
 * forward) with respect to sampled weights, biases and batch-norm scales of every convolution. Layers between
 * convolutions are thereby checked through the gradients they hand back.
 */
final class GradientCheck {
    static final String NET = "[net]\nbatch=2\nsubdivisions=1\nwidth=%d\nheight=%d\nchannels=%d\n";

    private GradientCheck() {}

    static NetworkSpec spec(String cfg) {
        return NetworkSpec.parse(Path.of("check.cfg"), cfg, 0, 0);
    }

    /** Darknet initialisation with biases, scales and statistics perturbed, so no parameter sits at a special value. */
    static ModelWeights randomWeights(NetworkSpec spec, long seed) {
        ModelWeights w = WeightsInit.darknet(spec, seed);
        SplittableRandom rnd = new SplittableRandom(seed + 1);
        for (int i : w.layerIndices()) {
            ConvWeights c = w.conv(i);
            for (int f = 0; f < c.biases().length; f++) {
                c.biases()[f] = (float) rnd.nextDouble(-0.3, 0.3);
                if (c.batchNormalized()) {
                    c.scales()[f] = (float) rnd.nextDouble(0.5, 1.5);
                    c.mean()[f] = (float) rnd.nextDouble(-0.2, 0.2);
                    c.variance()[f] = (float) rnd.nextDouble(0.5, 2);
                }
            }
        }
        return w;
    }

    /** Runs the check; fails listing the worst mismatches. Returns the number of entries compared. */
    static int run(String cfg, int batch, int samplesPerTensor, long seed) {
        NetworkSpec spec = spec(cfg);
        try (Workers workers = new Workers(2);
             TrainContext ctx = new TrainContext(workers, false);
             TrainNetwork net = new TrainNetwork(spec, randomWeights(spec, seed), batch, ctx)) {
            SplittableRandom rnd = new SplittableRandom(seed + 2);
            FloatBuffer in = net.input();
            for (int i = 0; i < batch * spec.inputShape().size(); i++) in.put(i, (float) rnd.nextDouble());
            int last = spec.layers().size() - 1;
            int outCount = batch * spec.layers().get(last).output().size();
            float[] r = new float[outCount];
            for (int i = 0; i < outCount; i++) r[i] = (float) rnd.nextDouble(-1, 1);

            net.forward(batch);
            net.zeroGradients(batch);
            net.setGradient(last, r);
            net.backwardLayers(batch);

            List<String> failures = new ArrayList<>();
            int compared = 0;
            int skipped = 0;
            String kinks = kinkState(net, batch);
            double eps = 1e-3;
            for (ConvParameters p : net.parameters().values()) {
                for (ParameterTensor t : p.tensors()) {
                    int[] picks = pick(t.size(), samplesPerTensor, rnd);
                    for (int idx : picks) {
                        double analytic = t.gradient().get(idx);
                        float saved = t.master()[idx];
                        t.master()[idx] = (float) (saved + eps);
                        p.refreshWorkingCopy(false);
                        double plus = objective(net, batch, last, r);
                        boolean crossed = !kinkState(net, batch).equals(kinks);
                        t.master()[idx] = (float) (saved - eps);
                        p.refreshWorkingCopy(false);
                        double minus = objective(net, batch, last, r);
                        crossed |= !kinkState(net, batch).equals(kinks);
                        t.master()[idx] = saved;
                        p.refreshWorkingCopy(false);
                        if (crossed) {
                            // a leaky/relu input or a max-pool winner changed side within +-eps: the difference
                            // quotient straddles a kink and says nothing about the derivative
                            skipped++;
                            continue;
                        }
                        double numeric = (plus - minus) / (2 * eps);
                        compared++;
                        double tol = 2e-2 * Math.max(Math.abs(analytic), Math.abs(numeric)) + 2e-3;
                        if (Math.abs(analytic - numeric) > tol) {
                            failures.add(String.format(Locale.ROOT, "%s[%d]: analytic %.6f, numeric %.6f", t.name(),
                                    idx, analytic, numeric));
                        }
                    }
                }
            }
            assertTrue(skipped <= compared / 4, skipped + " samples straddled a kink, " + compared + " compared");
            assertTrue(failures.isEmpty(), failures.size() + " of " + compared + " gradients disagree:\n"
                    + String.join("\n", failures.subList(0, Math.min(20, failures.size()))));
            return compared;
        }
    }

    /**
     * Which side of its kink every piecewise-linear unit is on: the sign of the outputs of leaky/relu layers and the
     * winners of max-pool windows.
     */
    static String kinkState(TrainNetwork net, int batch) {
        StringBuilder b = new StringBuilder();
        for (var l : net.spec().layers()) {
            io.argus.detector.darknet.Activation act = switch (l) {
                case io.argus.detector.darknet.ConvolutionalSpec c -> c.activation();
                case io.argus.detector.darknet.ShortcutSpec s -> s.activation();
                default -> null;
            };
            if (act == io.argus.detector.darknet.Activation.LEAKY || act == io.argus.detector.darknet.Activation.RELU) {
                FloatBuffer y = net.output(l.index());
                for (int i = 0; i < batch * l.output().size(); i++) b.append(y.get(i) > 0 ? '+' : '-');
            }
            if (l instanceof io.argus.detector.darknet.MaxPoolSpec) b.append(net.maxPoolWinners(l.index()));
            b.append('|');
        }
        return b.toString();
    }

    private static double objective(TrainNetwork net, int batch, int last, float[] r) {
        net.forward(batch);
        FloatBuffer y = net.output(last);
        double sum = 0;
        for (int i = 0; i < r.length; i++) sum += (double) r[i] * y.get(i);
        return sum;
    }

    private static int[] pick(int size, int count, SplittableRandom rnd) {
        if (size <= count) {
            int[] all = new int[size];
            for (int i = 0; i < size; i++) all[i] = i;
            return all;
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) out[i] = rnd.nextInt(size);
        return out;
    }
}
