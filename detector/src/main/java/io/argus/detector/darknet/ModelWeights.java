package io.argus.detector.darknet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * All parameters of a network: the .weights header and, per convolutional layer index, its {@link ConvWeights}.
 * {@code seen} counts training images, as Darknet does.
 */
public final class ModelWeights {
    private final int major;
    private final int minor;
    private final int revision;
    private long seen;
    private final Map<Integer, ConvWeights> conv;

    public ModelWeights(int major, int minor, int revision, long seen, Map<Integer, ConvWeights> conv) {
        this.major = major;
        this.minor = minor;
        this.revision = revision;
        this.seen = seen;
        this.conv = Collections.unmodifiableMap(new LinkedHashMap<>(conv));
    }

    /** Zero parameters for every convolutional layer, with the header Darknet writes today (0.2.5). */
    public static ModelWeights zeros(NetworkSpec spec) {
        Map<Integer, ConvWeights> m = new LinkedHashMap<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) m.put(c.index(), ConvWeights.zeros(c));
        return new ModelWeights(0, 2, 5, 0, m);
    }

    public int major() { return major; }

    public int minor() { return minor; }

    public int revision() { return revision; }

    public long seen() { return seen; }

    public void setSeen(long seen) { this.seen = seen; }

    /** Darknet stores {@code seen} as 64 bits from version 0.2 on, 32 bits before. */
    public boolean seen64() { return major * 10 + minor >= 2; }

    public ConvWeights conv(int layerIndex) {
        ConvWeights w = conv.get(layerIndex);
        if (w == null) throw new IllegalArgumentException("no weights for layer " + layerIndex);
        return w;
    }

    public List<Integer> layerIndices() { return new ArrayList<>(conv.keySet()); }

    public long floatCount() {
        long n = 0;
        for (ConvWeights w : conv.values()) n += w.floatCount();
        return n;
    }

    public ModelWeights copy() {
        Map<Integer, ConvWeights> m = new LinkedHashMap<>();
        conv.forEach((k, v) -> m.put(k, v.copy()));
        return new ModelWeights(major, minor, revision, seen, m);
    }
}
