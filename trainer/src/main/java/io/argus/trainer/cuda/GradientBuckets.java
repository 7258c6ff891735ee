package io.argus.trainer.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a data-parallel rank cuts the weight gradients into buckets that are summed over the ranks while the backward
 * pass goes on (host-side, like PyTorch DDP's buckets). The backward pass runs from the last layer to the first, and
 * the parameter arena holds the convolutions' weights in layer order, so the layers {@code j..k} a bucket covers are
 * one contiguous range of the arena, complete once layer j's backward has run: that layer is the bucket's trigger.
 * Buckets are at least {@code bucketValues} values (the last may be smaller); biases and batch-norm scales, a small
 * tail of the arena written by every layer, are summed once at the end.
 */
final class GradientBuckets {
    /** Values [from, to) of the arena, ready after the backward of layer {@code trigger}. */
    record Bucket(int trigger, long from, long to) {
        long values() { return to - from; }
    }

    private final List<Bucket> buckets;
    private final Map<Integer, Bucket> byTrigger = new TreeMap<>();
    private final long tailFrom;
    private final long tailTo;

    GradientBuckets(ParameterArena arena, long bucketValues) {
        if (bucketValues <= 0) throw new IllegalArgumentException("bucket values: expected > 0, found " + bucketValues);
        List<ParameterArena.Slot> slots = new ArrayList<>(arena.slots().values());
        List<Bucket> out = new ArrayList<>();
        long to = -1;
        for (int k = slots.size() - 1; k >= 0; k--) {   // backward order: the last layer first
            ParameterArena.Slot s = slots.get(k);
            if (to < 0) to = s.weights() + s.weightCount();
            long from = s.weights();
            if (to - from >= bucketValues || k == 0) {
                out.add(new Bucket(s.spec().index(), from, to));
                to = -1;
            }
        }
        this.buckets = List.copyOf(out);
        for (Bucket b : buckets) byTrigger.put(b.trigger(), b);
        this.tailFrom = arena.weightValues();
        this.tailTo = arena.total();
        checkCover(arena);
    }

    /** The buckets in the order the backward pass completes them. */
    List<Bucket> buckets() { return buckets; }

    /** The bucket whose last layer to finish is {@code layer}, or null. */
    Bucket triggeredBy(int layer) { return byTrigger.get(layer); }

    /** Biases and scales: [weightValues, total), summed after the whole backward pass. */
    long tailFrom() { return tailFrom; }

    long tailTo() { return tailTo; }

    /** The buckets tile [0, weightValues) exactly, in descending order: a gap would leave gradients unsummed. */
    private void checkCover(ParameterArena arena) {
        long expect = arena.weightValues();
        for (Bucket b : buckets) {
            if (b.to() != expect || b.from() >= b.to()) {
                throw new IllegalStateException("gradient buckets do not tile the weights: " + buckets);
            }
            expect = b.from();
        }
        if (expect != 0) throw new IllegalStateException("gradient buckets do not reach value 0: " + buckets);
    }
}
