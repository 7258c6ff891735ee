package io.argus.detector.darknet;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** Fresh parameters as Darknet initialises them for training from scratch. */
public final class WeightsInit {
    private WeightsInit() {}

    /**
     * Darknet's make_convolutional_layer: weights uniform in +-sqrt(2 / (size*size*c/groups)), biases 0, BN scales 1,
     * rolling mean 0, rolling variance 1. Deterministic for a seed.
     */
    public static ModelWeights darknet(NetworkSpec spec, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<Integer, ConvWeights> m = new LinkedHashMap<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            ConvWeights w = ConvWeights.zeros(c);
            float scale = (float) Math.sqrt(2.0 / (c.size() * c.size() * c.groupChannels()));
            float[] ws = w.weights();
            for (int i = 0; i < ws.length; i++) ws[i] = scale * (float) rnd.nextDouble(-1, 1);
            if (w.batchNormalized()) {
                Arrays.fill(w.scales(), 1f);
                Arrays.fill(w.variance(), 1f);
            }
            m.put(c.index(), w);
        }
        return new ModelWeights(0, 2, 5, 0, m);
    }
}
