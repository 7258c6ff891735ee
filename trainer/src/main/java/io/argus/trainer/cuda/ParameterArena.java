package io.argus.trainer.cuda;

import io.argus.gpu.TensorView;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where every trainable value of a network lives in the GPU's parameter arena: all convolution weights first, in
 * cuDNN's KRSC layout with input and output channels padded as the feature maps are ([0, weightValues)), then per
 * layer the biases and, with batch norm, the scales ([weightValues, total)). The gradient, momentum and EMA arenas use
 * the same offsets, and so do the FP16 working copy and the per-pass weight gradient for the weights. One flat
 * layout is what lets one kernel launch update, check or average every tensor of every layer. Padding entries are
 * zero and stay zero (their gradients are zero). Batch-norm rolling statistics live in a second arena of
 * {@code paddedFilters} slots per layer. Host-side only: conversions between Darknet's layout and the arena.
 */
final class ParameterArena {
    /** Offsets of one convolution's tensors (in values) and its padded shape. */
    record Slot(ConvolutionalSpec spec, int inStride, int paddedFilters, long weights, long weightCount, long biases,
                long scales, long statistics) {
        /** Input channels per group as the filter is laid out (padded when groups = 1). */
        int filterChannels() { return inStride / spec.groups(); }
    }

    private final Map<Integer, Slot> slots = new LinkedHashMap<>();
    private final long weightValues;
    private final long total;
    private final long statisticsValues;

    ParameterArena(NetworkSpec spec) {
        long w = 0;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            int inStride = TensorView.padded(c.input().channels());
            int kp = TensorView.padded(c.filters());
            if (c.groups() > 1 && (c.input().channels() % 8 != 0 || c.filters() % 8 != 0)) {
                throw new IllegalArgumentException(spec.file() + " line " + c.line() + ": layer " + c.index()
                        + " is a grouped convolution (groups=" + c.groups() + ") with " + c.input().channels()
                        + " input and " + c.filters() + " output channels; the CUDA trainer needs multiples of 8 "
                        + "for grouped convolutions");
            }
            long count = (long) kp * c.size() * c.size() * (inStride / c.groups());
            slots.put(c.index(), new Slot(c, inStride, kp, w, count, -1, -1, -1));
            w += count;
        }
        long at = w;
        long stats = 0;
        for (Map.Entry<Integer, Slot> e : slots.entrySet()) {
            Slot s = e.getValue();
            long biases = at;
            at += s.spec().filters();
            long scales = -1;
            long statistics = -1;
            if (s.spec().batchNormalize()) {
                scales = at;
                at += s.spec().filters();
                statistics = stats;
                stats += 2L * s.paddedFilters();
            }
            e.setValue(new Slot(s.spec(), s.inStride(), s.paddedFilters(), s.weights(), s.weightCount(), biases,
                    scales, statistics));
        }
        this.weightValues = w;
        this.total = at;
        this.statisticsValues = stats;
        if (total > Integer.MAX_VALUE) throw new IllegalArgumentException(spec.file() + ": over 2^31 parameters");
    }

    long weightValues() { return weightValues; }

    long total() { return total; }

    /** Values of the rolling-statistics arena: per batch-norm layer, paddedFilters means then paddedFilters variances. */
    long statisticsValues() { return statisticsValues; }

    Slot slot(int layer) { return slots.get(layer); }

    Map<Integer, Slot> slots() { return slots; }

    /** Darknet's [filters][c/groups][size][size] weights to the arena's [paddedFilters][size][size][filterChannels]. */
    static void weightsToArena(Slot s, float[] darknet, float[] arena) {
        ConvolutionalSpec c = s.spec();
        int k = c.filters(), ch = c.groupChannels(), sz = c.size(), cp = s.filterChannels();
        int base = (int) s.weights();
        for (int f = 0; f < k; f++) {
            for (int i = 0; i < ch; i++) {
                for (int r = 0; r < sz; r++) {
                    for (int q = 0; q < sz; q++) {
                        arena[base + ((f * sz + r) * sz + q) * cp + i] = darknet[((f * ch + i) * sz + r) * sz + q];
                    }
                }
            }
        }
    }

    /** The inverse of {@link #weightsToArena}: Darknet's layout, padding dropped. */
    static float[] weightsFromArena(Slot s, float[] arena) {
        ConvolutionalSpec c = s.spec();
        int k = c.filters(), ch = c.groupChannels(), sz = c.size(), cp = s.filterChannels();
        int base = (int) s.weights();
        float[] out = new float[c.weightCount()];
        for (int f = 0; f < k; f++) {
            for (int i = 0; i < ch; i++) {
                for (int r = 0; r < sz; r++) {
                    for (int q = 0; q < sz; q++) {
                        out[((f * ch + i) * sz + r) * sz + q] = arena[base + ((f * sz + r) * sz + q) * cp + i];
                    }
                }
            }
        }
        return out;
    }

    /** The whole parameter arena and the rolling statistics of a network's Darknet weights. */
    float[][] fromDarknet(ModelWeights weights) {
        float[] arena = new float[(int) total];
        float[] stats = new float[(int) statisticsValues];
        for (Slot s : slots.values()) {
            ConvWeights w = weights.conv(s.spec().index());
            weightsToArena(s, w.weights(), arena);
            System.arraycopy(w.biases(), 0, arena, (int) s.biases(), s.spec().filters());
            if (s.scales() >= 0) {
                System.arraycopy(w.scales(), 0, arena, (int) s.scales(), s.spec().filters());
                System.arraycopy(w.mean(), 0, stats, (int) s.statistics(), s.spec().filters());
                System.arraycopy(w.variance(), 0, stats, (int) s.statistics() + s.paddedFilters(), s.spec().filters());
            }
        }
        return new float[][] {arena, stats};
    }

    /** Darknet weights of every convolution from an arena (masters or EMA) and the rolling statistics. */
    Map<Integer, ConvWeights> toDarknet(float[] arena, float[] stats) {
        Map<Integer, ConvWeights> out = new LinkedHashMap<>();
        for (Slot s : slots.values()) {
            int f = s.spec().filters();
            float[] biases = slice(arena, s.biases(), f);
            float[] scales = s.scales() >= 0 ? slice(arena, s.scales(), f) : null;
            float[] mean = s.scales() >= 0 ? slice(stats, s.statistics(), f) : null;
            float[] variance = s.scales() >= 0 ? slice(stats, s.statistics() + s.paddedFilters(), f) : null;
            out.put(s.spec().index(), new ConvWeights(biases, scales, mean, variance, weightsFromArena(s, arena)));
        }
        return out;
    }

    /**
     * Per tensor in {@link io.argus.trainer.optim.OptimizerState#shapes}' order (per convolution: weights in
     * Darknet's layout, biases, scales), the values of an arena (momentum or masters).
     */
    List<float[]> toTensors(float[] arena) {
        List<float[]> out = new ArrayList<>();
        for (Slot s : slots.values()) {
            int f = s.spec().filters();
            out.add(weightsFromArena(s, arena));
            out.add(slice(arena, s.biases(), f));
            if (s.scales() >= 0) out.add(slice(arena, s.scales(), f));
        }
        return out;
    }

    /** The inverse of {@link #toTensors}: an arena (padding zero) from per-tensor values in that order. */
    float[] fromTensors(List<float[]> tensors) {
        float[] arena = new float[(int) total];
        int t = 0;
        for (Slot s : slots.values()) {
            int f = s.spec().filters();
            weightsToArena(s, tensors.get(t++), arena);
            System.arraycopy(tensors.get(t++), 0, arena, (int) s.biases(), f);
            if (s.scales() >= 0) System.arraycopy(tensors.get(t++), 0, arena, (int) s.scales(), f);
        }
        return arena;
    }

    private static float[] slice(float[] a, long from, int count) {
        float[] out = new float[count];
        System.arraycopy(a, (int) from, out, 0, count);
        return out;
    }
}
