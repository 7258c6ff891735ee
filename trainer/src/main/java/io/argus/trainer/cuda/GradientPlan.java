package io.argus.trainer.cuda;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.TensorView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Where each layer's output gradient (dy) lives in the network's gradient arena, and when it is cleared; and which
 * layer outputs live there during the forward pass (host-side only, no GPU).
 *
 * <p>Backward runs in steps: step 0 is the loss (every [yolo] head, or the stand-in loss, adds into its input's
 * gradient before any layer's backward), then step {@code count - i} is layer i's backward, in reverse layer order. A
 * gradient tensor is written first by its earliest writer in that order (its highest-index consumer, or a loss at step
 * 0) and read last by its own layer's backward, and at no other time (consumers always come after their inputs in the
 * cfg, so a tensor's first write precedes its last read). Outside [first write, last read] its bytes hold nothing
 * anyone reads, so two tensors whose intervals do not overlap may share bytes: offsets are assigned greedily, largest
 * tensor first, each at the lowest offset clear of every already placed tensor that is live at the same time, and the
 * arena is the highest end. Every consumer adds into its inputs' gradients, so each tensor must hold zeros when it
 * becomes live, exactly as it did after the old whole-arena memset: {@link #clears} lists the ranges to zero before a
 * step, that is, before a tensor's first write and after the last read of anything that shared its bytes earlier (all
 * of those end at earlier steps). Kernels thus see the same values as with one private buffer per tensor, so the
 * numbers are bit for bit those of the whole-network layout. A convolution that writes its input's gradient with
 * cuDNN beta 0 ({@link #soleWriter}) gets the tensor cleared too: beta 0 need not ignore what was there (a graph
 * engine may compute 0 * old, and a previous occupant may hold Inf from an overflowing FP16 pass).
 *
 * <p>The forward pass writes no gradient, so during it the arena is free: the outputs that no backward reads
 * ({@link #forwardOnly}: those consumed only by [route] and [upsample], whose backward reads gradients alone) live
 * there from their layer's forward to their last consumer's, placed the same way among themselves. The clears of
 * step 0 (the losses' gradients) therefore come after the forward pass, never before it.
 *
 * <p>With {@code keepAll} every tensor has its own bytes in layer order (the whole-network layout, cleared at once
 * before the losses) and no output lives here, so every layer's gradient and output can be read after a pass (tests,
 * debugging).
 */
final class GradientPlan {
    /** Byte alignment of each planned tensor (cudaMalloc's; cuDNN's graph engines read the address alignment). */
    static final long ALIGNMENT = 256;

    private final int count;
    private final boolean keepAll;
    private final int[] owner;
    private final int[] writers;
    private final boolean[] sole;
    private final long[] sizes;
    private final long[] offsets;
    private final long[] outputSizes;
    private final long[] outputOffsets;
    private final int[] produced;
    private final int[] lastUse;
    private final int[] first;
    private final int[] last;
    private final long bytes;
    private final long wholeNetwork;
    private final List<List<long[]>> clears;

    private GradientPlan(NetworkSpec spec, int maxBatch, int elementBytes, boolean overwrite, boolean keepAll) {
        List<LayerSpec> layers = spec.layers();
        this.count = layers.size();
        this.keepAll = keepAll;
        this.owner = new int[count];
        for (int i = 0; i < count; i++) owner[i] = GpuTrainNetwork.owner(spec, i);
        this.writers = GpuTrainNetwork.gradientWriters(spec);
        this.sole = new boolean[count];
        this.sizes = new long[count];
        this.offsets = new long[count];
        this.first = new int[count];
        this.last = new int[count];
        Arrays.fill(offsets, -1);
        Arrays.fill(first, Integer.MAX_VALUE);
        long whole = 0;
        for (LayerSpec l : layers) {
            int i = l.index();
            if (hasTensor(l)) {
                sizes[i] = packedBytes(l.output(), maxBatch, elementBytes);
                whole += sizes[i];
                last[i] = step(spec, i);
            }
            // the convolution at i is the only writer of its input's gradient: with overwrite it writes (beta 0)
            if (l instanceof ConvolutionalSpec && i > 0) {
                sole[i] = overwrite && writers[owner[i - 1]] == 1;
            }
        }
        // first write: the earliest step of any writer (alias routes write nothing: their consumers write the source)
        for (LayerSpec l : layers) {
            if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
            for (int in : l.inputs()) {
                if (in < 0) continue;
                int o = owner[in];
                first[o] = Math.min(first[o], step(spec, l.index()));
            }
        }
        for (int i = 0; i < count; i++) {
            if (sizes[i] == 0) continue;
            // a tensor nobody writes is still read (as zeros) by its own backward: live for that step only
            if (first[i] == Integer.MAX_VALUE) first[i] = last[i];
            if (first[i] > last[i]) {
                throw new IllegalStateException("layer " + i + ": gradient written at step " + first[i]
                        + " after its last read at step " + last[i]);
            }
        }
        this.wholeNetwork = whole;
        // outputs no backward reads: a layer's output is read in backward only by consumers that read their input
        // there (convolution: backward filter; max-pool: the winners; shortcut: the activation's derivative; the
        // losses). [route] and [upsample] backward read only gradients, and a layer's own backward reads z (a
        // convolution) or its inputs, never its own output. Such an output is live from its forward to its last
        // consumer's forward; the gradient arena is idle all forward long (every gradient is cleared before its first
        // write, the losses' ones only after the forward: see clears), so these outputs live there.
        boolean[] readInBackward = new boolean[count];
        this.lastUse = new int[count];
        this.produced = new int[count];
        this.outputSizes = new long[count];
        this.outputOffsets = new long[count];
        Arrays.fill(outputOffsets, -1);
        for (LayerSpec l : layers) {
            lastUse[l.index()] = l.index();
            produced[l.index()] = l.index();
        }
        for (LayerSpec l : layers) {
            if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;   // its consumers read the source
            boolean readsInput = !(l instanceof RouteSpec || l instanceof UpsampleSpec);
            for (int in : l.inputs()) {
                if (in < 0) continue;
                int o = owner[in];
                lastUse[o] = Math.max(lastUse[o], l.index());
                if (readsInput) readInBackward[o] = true;
            }
        }
        for (LayerSpec l : layers) {
            int i = l.index();
            if (!keepAll && hasTensor(l) && !readInBackward[i]) {
                outputSizes[i] = packedBytes(l.output(), maxBatch, elementBytes);
            }
        }
        this.clears = new ArrayList<>();
        for (int s = 0; s <= count; s++) clears.add(new ArrayList<>());
        if (keepAll) {
            long at = 0;
            for (int i = 0; i < count; i++) {
                if (sizes[i] == 0) continue;
                offsets[i] = at;
                at += sizes[i];
            }
            this.bytes = at;
            if (at > 0) clears.get(0).add(new long[] {0, at});
        } else {
            long top = place(sizes, first, last, offsets);
            for (int s = 0; s <= count; s++) clears.set(s, merged(s));
            top = Math.max(top, place(outputSizes, produced, lastUse, outputOffsets));
            this.bytes = top;
        }
    }

    /**
     * The plan for {@code maxBatch} images of {@code elementBytes} each; {@code overwrite}: the options'
     * overwriteGradients; {@code keepAll}: one private tensor per layer (every gradient readable after a pass).
     */
    static GradientPlan of(NetworkSpec spec, int maxBatch, int elementBytes, boolean overwrite, boolean keepAll) {
        return new GradientPlan(spec, maxBatch, elementBytes, overwrite, keepAll);
    }

    /** Bytes of {@code maxBatch} packed NHWC tensors of shape {@code s} (channels padded to 8). */
    static long packedBytes(Shape s, int maxBatch, int elementBytes) {
        return (long) maxBatch * s.height() * s.width() * TensorView.padded(s.channels()) * elementBytes;
    }

    /** Whether layer l has a gradient tensor of its own (not [yolo], not an alias route). */
    static boolean hasTensor(LayerSpec l) {
        return !(l instanceof YoloSpec) && !(l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r));
    }

    /** The backward step of layer i: 0 for [yolo] (the losses run first), else count - i. */
    static int step(NetworkSpec spec, int i) {
        return spec.layers().get(i) instanceof YoloSpec ? 0 : spec.layers().size() - i;
    }

    private static long align(long b) { return (b + ALIGNMENT - 1) & -ALIGNMENT; }

    /**
     * Offsets for the tensors of nonzero size whose live intervals are [from, to] (inclusive): first fit, largest
     * first (ties: lower layer first), each aligned; returns the highest end.
     */
    static long place(long[] sizes, int[] from, int[] to, long[] offsets) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) if (sizes[i] > 0) order.add(i);
        order.sort(Comparator.<Integer>comparingLong(i -> -sizes[i]).thenComparingInt(i -> i));
        List<Integer> placed = new ArrayList<>();
        long top = 0;
        for (int t : order) {
            List<long[]> busy = new ArrayList<>();
            for (int p : placed) {
                if (from[t] <= to[p] && from[p] <= to[t]) busy.add(new long[] {offsets[p], offsets[p] + align(sizes[p])});
            }
            busy.sort(Comparator.comparingLong(r -> r[0]));
            long at = 0;
            long need = align(sizes[t]);
            for (long[] r : busy) {
                if (at + need <= r[0]) break;
                at = Math.max(at, r[1]);
            }
            offsets[t] = at;
            placed.add(t);
            top = Math.max(top, at + need);
        }
        return top;
    }

    /** The byte ranges of tensors first written at step s, adjacent ones merged, by offset. */
    private List<long[]> merged(int s) {
        List<long[]> ranges = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (sizes[i] > 0 && first[i] == s) ranges.add(new long[] {offsets[i], offsets[i] + sizes[i]});
        }
        ranges.sort(Comparator.comparingLong(r -> r[0]));
        List<long[]> out = new ArrayList<>();
        for (long[] r : ranges) {
            long[] prev = out.isEmpty() ? null : out.get(out.size() - 1);
            // the alignment gap between two tensors is nobody's: clearing it too saves a memset
            if (prev != null && align(prev[1]) >= r[0]) prev[1] = Math.max(prev[1], r[1]);
            else out.add(new long[] {r[0], r[1]});
        }
        List<long[]> result = new ArrayList<>();
        for (long[] r : out) result.add(new long[] {r[0], r[1] - r[0]});
        return result;
    }

    /** Bytes of the gradient arena. */
    long bytes() { return bytes; }

    /** Bytes of one private tensor per layer (the whole-network layout). */
    long wholeNetworkBytes() { return wholeNetwork; }

    /** The most bytes live at one step (a lower bound of {@link #bytes}), sizes unaligned. */
    long liveBound() {
        long most = 0;
        for (int s = 0; s <= count; s++) {
            long live = 0;
            for (int i = 0; i < count; i++) if (sizes[i] > 0 && first[i] <= s && s <= last[i]) live += sizes[i];
            most = Math.max(most, live);
        }
        return most;
    }

    /**
     * Whether layer i's output (y) lives in this arena during the forward pass, because no backward reads it (never
     * with keepAll; never for [yolo], alias routes, or outputs a convolution, max-pool, shortcut or loss consumes).
     */
    boolean forwardOnly(int i) { return outputSizes[i] > 0; }

    /** Offset of layer i's forward-only output in the arena; -1 where it is not forward-only. */
    long outputOffset(int i) { return outputOffsets[i]; }

    /** Bytes of layer i's forward-only output (0 where it is not forward-only). */
    long outputSize(int i) { return outputSizes[i]; }

    /** The forward index of the last layer that reads layer i's output (i itself where none). */
    int lastUse(int i) { return lastUse[i]; }

    /** Bytes of the forward-only outputs together (what the feature-map arena no longer holds). */
    long forwardOnlyBytes() {
        long sum = 0;
        for (long b : outputSizes) sum += b;
        return sum;
    }

    /**
     * Whether layer i's output still holds its value after a whole pass: always, unless it is forward-only and its
     * bytes were taken by a gradient or by a forward-only output produced after its last use.
     */
    boolean outputKeptAfterPass(int i) {
        if (outputSizes[i] == 0) return true;
        long from = outputOffsets[i], to = from + outputSizes[i];
        for (int j = 0; j < count; j++) {
            if (sizes[j] > 0 && offsets[j] < to && from < offsets[j] + sizes[j]) return false;
            if (j != i && outputSizes[j] > 0 && produced[j] > lastUse[i] && outputOffsets[j] < to
                    && from < outputOffsets[j] + outputSizes[j]) {
                return false;
            }
        }
        return true;
    }

    /** Offset of layer i's gradient tensor in the arena (an alias route's is its source's); -1 for [yolo]. */
    long offset(int i) { return offsets[owner[i]]; }

    /** Bytes of layer i's own tensor (0 for [yolo] and alias routes). */
    long size(int i) { return sizes[i]; }

    /** The step of the first write into layer i's own tensor (0: the losses). */
    int firstWrite(int i) { return first[i]; }

    /** The step of the last read of layer i's own tensor (its own backward). */
    int lastRead(int i) { return last[i]; }

    /**
     * The step of layer i's backward in the loop over layers: {@code count - i} ([yolo] layers too, whose backward is
     * empty and whose step has nothing to clear; their losses, which write, are step 0).
     */
    int backwardStep(int i) { return count - i; }

    /** Steps: 0 (the losses) to {@code count} (layer 0's backward). */
    int steps() { return count + 1; }

    /**
     * {offset, length} ranges to zero before step s: tensors first written at s, all of maxBatch images. Step 0's
     * after the forward pass (forward-only outputs may hold those bytes until then).
     */
    List<long[]> clears(int s) { return clears.get(s); }

    /** Whether convolution i writes its input's gradient with beta 0 (its only writer, overwrite on). */
    boolean soleWriter(int i) { return sole[i]; }

    /**
     * Whether layer i's gradient still holds its value after a whole backward: no tensor sharing its bytes is written
     * later (always with keepAll; never for [yolo]).
     */
    boolean keptAfterPass(int i) {
        int o = owner[i];
        if (sizes[o] == 0) return false;
        if (keepAll) return true;
        for (int j = 0; j < count; j++) {
            if (j == o || sizes[j] == 0) continue;
            boolean shares = offsets[j] < offsets[o] + sizes[o] && offsets[o] < offsets[j] + sizes[j];
            if (shares && first[j] > last[o]) return false;
        }
        return true;
    }
}
