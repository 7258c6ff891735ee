package io.argus.detector.cuda;

import io.argus.detector.BgrImage;
import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.post.Preprocess;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Random weights for GPU-vs-CPU tests that keep every activation O(1) through deep networks, so FP16 rounding stays
 * rounding: He-scaled weights, batch norm with a positive shift (beta), damped residual branches, small weights on
 * the box rows of each head. {@link #calibrate} then moves the heads' objectness and class biases, measured on real
 * images, so that a handful of boxes per image pass the 0.25 threshold.
 */
final class TestWeights {
    private TestWeights() {}

    static ModelWeights random(NetworkSpec spec, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<Integer, YoloSpec> headOf = new HashMap<>();
        for (YoloSpec y : spec.yoloLayers()) headOf.put(y.index() - 1, y);
        List<LayerSpec> layers = spec.layers();
        Map<Integer, ConvWeights> all = new LinkedHashMap<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            boolean residualEnd = c.index() + 1 < layers.size() && layers.get(c.index() + 1) instanceof ShortcutSpec;
            YoloSpec head = headOf.get(c.index());
            ConvWeights w = ConvWeights.zeros(c);
            int fanIn = c.size() * c.size() * c.groupChannels();
            double a = Math.sqrt(6.0 / fanIn);
            int perFilter = w.weights().length / c.filters();
            for (int f = 0; f < c.filters(); f++) {
                double af = head != null && f % head.entries() < 4 ? 0.2 * a : a;
                for (int i = 0; i < perFilter; i++) w.weights()[f * perFilter + i] = (float) (af * rnd.nextDouble(-1, 1));
                if (w.batchNormalized()) {
                    w.biases()[f] = (float) rnd.nextDouble(0.05, 0.3);
                    w.scales()[f] = (float) (residualEnd ? rnd.nextDouble(0.1, 0.3) : rnd.nextDouble(0.8, 1.2));
                    w.mean()[f] = (float) rnd.nextDouble(-0.1, 0.1);
                    w.variance()[f] = (float) rnd.nextDouble(0.5, 1.5);
                } else {
                    w.biases()[f] = (float) rnd.nextDouble(-0.1, 0.1);
                }
            }
            all.put(c.index(), w);
        }
        return new ModelWeights(0, 2, 5, 0, all);
    }

    /**
     * Shifts each head's objectness biases so that about {@code boxes} anchors per image and head have objectness
     * above 0.6, and its class biases so that about 3% of class scores exceed 0.7, measured on {@code images} with
     * the CPU network (only head biases change, so one forward pass suffices).
     */
    static void calibrate(NetworkSpec spec, ModelWeights weights, List<BgrImage> images, int boxes) {
        int n = images.size();
        try (CpuNetwork net = new CpuNetwork(spec, weights, n)) {
            Preprocess pre = new Preprocess();
            int size = spec.inputShape().size();
            for (int i = 0; i < n; i++) {
                pre.into(images.get(i), spec.net().width(), spec.net().height(), spec.net().letterBox(), net.input(),
                        i * size);
            }
            net.forward(n);
            for (YoloSpec y : spec.yoloLayers()) {
                int conv = y.index() - 1;
                var raw = net.output(conv);
                int plane = y.output().plane();
                int entries = y.entries();
                float[] obj = new float[n * y.anchorsPerCell() * plane];
                float[] cls = new float[n * y.anchorsPerCell() * plane * y.classes()];
                // the head convolution's output is activated: back to logits where it applied the logistic
                boolean logistic = spec.layers().get(conv) instanceof ConvolutionalSpec c
                        && c.activation() == io.argus.detector.darknet.Activation.LOGISTIC;
                int o = 0;
                int k = 0;
                for (int b = 0; b < n; b++) {
                    int base = b * y.output().size();
                    for (int a = 0; a < y.anchorsPerCell(); a++) {
                        for (int p = 0; p < plane; p++) obj[o++] = z(raw.get(base + (a * entries + 4) * plane + p), logistic);
                        for (int c = 0; c < y.classes(); c++) {
                            for (int p = 0; p < plane; p++) cls[k++] = z(raw.get(base + (a * entries + 5 + c) * plane + p), logistic);
                        }
                    }
                }
                Arrays.sort(obj);
                Arrays.sort(cls);
                float objShift = logit(0.6f) - obj[Math.max(0, obj.length - boxes * n)];
                float clsShift = logit(0.7f) - cls[(int) (cls.length * 0.97)];
                ConvWeights w = weights.conv(conv);
                for (int a = 0; a < y.anchorsPerCell(); a++) {
                    w.biases()[a * entries + 4] += objShift;
                    for (int c = 0; c < y.classes(); c++) w.biases()[a * entries + 5 + c] += clsShift;
                }
            }
        }
    }

    private static float z(float v, boolean logistic) {
        return logistic ? logit(Math.min(1 - 1e-6f, Math.max(1e-6f, v))) : v;
    }

    private static float logit(float p) {
        return (float) Math.log(p / (1 - p));
    }
}
