package io.argus.detector.testing;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Random weights for equivalence tests. They keep activations O(1) through deep networks (He-scaled weights, BN
 * with variance ~1 and a positive shift, small BN scale at the end of each residual branch so x + f(x) does not
 * double the variance per block) and keep box sizes sane (small weights on the x, y, w, h rows of each head).
 * {@link #calibrated} then shifts each head's objectness and class biases, measured on a real image, so that a few
 * dozen boxes per image pass a 0.25 threshold: enough to compare detections, few enough to compare them one by one.
 */
public final class RandomWeights {
    private RandomWeights() {}

    public static ModelWeights of(NetworkSpec spec, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<Integer, ConvWeights> m = new LinkedHashMap<>();
        List<LayerSpec> layers = spec.layers();
        Set<Integer> residualEnds = new HashSet<>();
        for (LayerSpec l : layers) if (l instanceof ShortcutSpec s) residualEnds.add(s.index() - 1);
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            ConvWeights w = ConvWeights.zeros(c);
            int fanIn = c.size() * c.size() * c.groupChannels();
            YoloSpec head = headOf(spec, c);
            // uniform(-a, a) has variance a^2/3: a = sqrt(6/fanIn) is He's 2/fanIn
            float a = (float) Math.sqrt(6.0 / fanIn);
            float[] ws = w.weights();
            int perFilter = ws.length / c.filters();
            for (int f = 0; f < c.filters(); f++) {
                float af = a;
                if (head != null && f % head.entries() < 4) af = (float) Math.sqrt(0.3 / fanIn); // x, y, w, h rows
                for (int i = 0; i < perFilter; i++) ws[f * perFilter + i] = af * (float) rnd.nextDouble(-1, 1);
                if (w.batchNormalized()) {
                    w.biases()[f] = (float) rnd.nextDouble(0.05, 0.35);   // BN beta > 0 keeps activations alive
                    // variance ~10 (scale ~3 to match) makes Darknet's and OpenCV's BN epsilons (1e-5 inside the
                    // sqrt vs 1e-6) differ by < 1e-7 relative, below float rounding
                    float var = (float) rnd.nextDouble(6, 16);
                    float gain = residualEnds.contains(c.index()) ? (float) rnd.nextDouble(0.05, 0.2)
                            : (float) rnd.nextDouble(0.7, 1.3);
                    w.scales()[f] = gain * (float) Math.sqrt(var);
                    w.mean()[f] = (float) rnd.nextDouble(-0.1, 0.1);
                    w.variance()[f] = var;
                } else {
                    w.biases()[f] = (float) rnd.nextDouble(-0.2, 0.2);
                }
            }
            m.put(c.index(), w);
        }
        return new ModelWeights(0, 2, 5, 0, m);
    }

    /** Random weights whose heads fire on about {@code boxesPerHead} anchors of {@code sample}, with 1-2 classes each. */
    public static ModelWeights calibrated(NetworkSpec spec, long seed, BgrImage sample, int boxesPerHead) {
        ModelWeights w = of(spec, seed);
        float[][] logits = headLogits(spec, w, sample);
        List<YoloSpec> heads = spec.yoloLayers();
        for (int h = 0; h < heads.size(); h++) {
            YoloSpec y = heads.get(h);
            ConvWeights conv = w.conv(y.index() - 1);
            int plane = y.output().plane();
            float[] obj = new float[y.anchorsPerCell() * plane];
            float[] cls = new float[y.anchorsPerCell() * plane * y.classes()];
            for (int n = 0; n < y.anchorsPerCell(); n++) {
                int base = n * y.entries() * plane;
                System.arraycopy(logits[h], base + 4 * plane, obj, n * plane, plane);
                System.arraycopy(logits[h], base + 5 * plane, cls, n * plane * y.classes(), plane * y.classes());
            }
            // objectness: the boxesPerHead-th largest logit lands at p = 0.6
            float objShift = logit(0.6f) - quantileFromTop(obj, boxesPerHead);
            // classes: about 2% of class logits above p = 0.7 (times objectness ~0.6-1: above 0.25 for 1-2 classes)
            float clsShift = logit(0.7f) - quantileFromTop(cls, Math.max(1, cls.length / 50));
            for (int n = 0; n < y.anchorsPerCell(); n++) {
                conv.biases()[n * y.entries() + 4] += objShift;
                for (int k = 0; k < y.classes(); k++) conv.biases()[n * y.entries() + 5 + k] += clsShift;
            }
        }
        return w;
    }

    /** Pre-sigmoid head inputs for one image: the conv output before each [yolo], logits recovered where logistic. */
    private static float[][] headLogits(NetworkSpec spec, ModelWeights w, BgrImage sample) {
        List<YoloSpec> heads = spec.yoloLayers();
        float[][] out = new float[heads.size()][];
        // untuned: these logits only place the biases, whichever implementation computes them
        try (CpuNetwork net = new CpuNetwork(spec, w, 1, FastNetworks.UNTUNED)) {
            new Preprocess().into(sample, spec.net().width(), spec.net().height(), spec.net().letterBox(), net.input(), 0);
            net.forward(1);
            for (int h = 0; h < heads.size(); h++) {
                YoloSpec y = heads.get(h);
                ConvolutionalSpec conv = (ConvolutionalSpec) spec.layers().get(y.index() - 1);
                float[] v = net.outputImage(conv.index(), 0);
                if (conv.activation() == io.argus.detector.darknet.Activation.LOGISTIC) {
                    for (int i = 0; i < v.length; i++) v[i] = logit(Math.min(1 - 1e-6f, Math.max(1e-6f, v[i])));
                }
                out[h] = v;
            }
        }
        return out;
    }

    private static YoloSpec headOf(NetworkSpec spec, ConvolutionalSpec c) {
        List<LayerSpec> layers = spec.layers();
        return c.index() + 1 < layers.size() && layers.get(c.index() + 1) instanceof YoloSpec y ? y : null;
    }

    private static float quantileFromTop(float[] v, int k) {
        float[] s = v.clone();
        Arrays.sort(s);
        return s[Math.max(0, s.length - Math.min(k, s.length))];
    }

    private static float logit(float p) {
        return (float) Math.log(p / (1 - p));
    }

    // Weights for deep networks compared across precisions (the GPU's FP16 against the CPU's FP32): every activation
    // O(1) however deep, so FP16 rounding stays rounding: He-scaled weights, batch norm with a positive shift (beta),
    // damped residual branches, small weights on the box rows of each head; calibrateOn then shifts the heads'
    // objectness and class biases, measured on real images, so that tens of boxes per image pass the 0.25 threshold.

    public static ModelWeights deep(NetworkSpec spec, long seed) {
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
     * Shifts each head's objectness and class biases, from the logits measured on {@code images} with the CPU
     * network, so that the {@code boxes}-th largest objectness per image sits at p = 0.6 and, on those anchors, the
     * 99th percentile of class scores too: tens to hundreds of detections per image, not thousands or none.
     */
    public static void calibrateOn(NetworkSpec spec, ModelWeights weights, List<BgrImage> images, int boxes) {
        int n = images.size();
        try (CpuNetwork net = new CpuNetwork(spec, weights, n, FastNetworks.UNTUNED)) {
            Preprocess pre = new Preprocess();
            int size = spec.inputShape().size();
            for (int i = 0; i < n; i++) {
                pre.into(images.get(i), spec.net().width(), spec.net().height(), spec.net().letterBox(), net.input(),
                        i * size);
            }
            net.forward(n);
            for (YoloSpec y : spec.yoloLayers()) {
                ConvolutionalSpec conv = (ConvolutionalSpec) spec.layers().get(y.index() - 1);
                if (conv.size() != 1 || conv.groups() != 1 || conv.batchNormalize()) {
                    throw new IllegalArgumentException("calibration expects 1x1 head convolutions without batch norm");
                }
                ConvWeights w = weights.conv(conv.index());
                int channels = conv.input().channels();
                int plane = y.output().plane();
                int entries = y.entries();
                float[] in = new float[n * channels * plane];
                for (int b = 0; b < n; b++) {
                    float[] one = net.outputImage(conv.index() - 1, b);
                    System.arraycopy(one, 0, in, b * one.length, one.length);
                }
                int anchors = n * y.anchorsPerCell() * plane;
                float[] obj = new float[anchors];
                float[][] cls = new float[anchors][y.classes()];
                int o = 0;
                for (int b = 0; b < n; b++) {
                    for (int a = 0; a < y.anchorsPerCell(); a++) {
                        for (int p = 0; p < plane; p++, o++) {
                            obj[o] = logit(w, a * entries + 4, in, b, channels, plane, p);
                            for (int c = 0; c < y.classes(); c++) {
                                cls[o][c] = logit(w, a * entries + 5 + c, in, b, channels, plane, p);
                            }
                        }
                    }
                }
                float[] sorted = obj.clone();
                Arrays.sort(sorted);
                float objCut = sorted[Math.max(0, anchors - boxes * n)];
                // class scores of the anchors that will be boxes: their 99th percentile becomes p = 0.6
                float[] top = new float[0];
                for (int i = 0; i < anchors; i++) {
                    if (obj[i] < objCut) continue;
                    int from = top.length;
                    top = Arrays.copyOf(top, from + y.classes());
                    System.arraycopy(cls[i], 0, top, from, y.classes());
                }
                Arrays.sort(top);
                // shifts only: scaling the logits up would scale the FP16 error of the head with them
                float[] objMap = {1f, logit(0.6f) - objCut};
                float[] clsMap = {1f, logit(0.6f) - top[(int) (top.length * 0.99)]};
                int perFilter = w.weights().length / conv.filters();
                for (int a = 0; a < y.anchorsPerCell(); a++) {
                    scale(w, a * entries + 4, perFilter, objMap);
                    for (int c = 0; c < y.classes(); c++) scale(w, a * entries + 5 + c, perFilter, clsMap);
                }
            }
        }
    }

    private static void scale(ConvWeights w, int filter, int perFilter, float[] ab) {
        for (int i = 0; i < perFilter; i++) w.weights()[filter * perFilter + i] *= ab[0];
        w.biases()[filter] = ab[0] * w.biases()[filter] + ab[1];
    }

    /** The head convolution's pre-activation output for one filter and pixel (1x1, no batch norm). */
    private static float logit(ConvWeights w, int filter, float[] in, int image, int channels, int plane, int p) {
        double z = w.biases()[filter];
        int base = image * channels * plane;
        for (int c = 0; c < channels; c++) z += (double) w.weights()[filter * channels + c] * in[base + c * plane + p];
        return (float) z;
    }


    /**
     * yolov4-tiny at {@code size} with random weights ({@code seed}) calibrated on the named sample pictures to give
     * about {@code boxes} boxes each, and those pictures: a model that detects plenty, for tests that compare backends.
     */
    public static Model calibratedTiny(int size, long seed, int boxes, String... samples) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), size, size);
        ModelWeights weights = deep(spec, seed);
        List<BgrImage> images = pictures(samples);
        calibrateOn(spec, weights, images, boxes);
        return new Model(spec, weights, Model.genericNames(spec.classes()));
    }

    /** The named sample pictures, in order. */
    public static List<BgrImage> pictures(String... samples) {
        return Arrays.stream(samples).map(n -> BgrImage.read(ProjectFiles.sample(n))).toList();
    }
}
