package io.argus.detector.cuda;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import java.util.HashMap;
import java.util.Map;

/**
 * Which layers write their output straight into its place inside a concatenating [route] (so the route copies
 * nothing); an imported graph's route that takes a layer as consecutive channel ranges (Split, then Concat) counts as
 * taking it whole. Routes are visited from the last to the first, so a route's own place is known before its inputs are
 * placed inside it; a layer goes into at most one route (a later route wins), other uses read it where it is.
 * A single-input route without groups is a plain reference: its source is placed instead. Placement needs whole
 * 8-channel groups (16-byte alignment for cuDNN and the vector kernels); anything else is copied by the route.
 * The producer may still decline its place (cuDNN without a strided-output engine): the route then copies it.
 */
public final class BufferPlan {
    /** Layer writes its output at channel {@code channelOffset} of route {@code route}'s output. */
    public record Slot(int route, int channelOffset) {}

    private final Map<Integer, Slot> slots;

    private BufferPlan(Map<Integer, Slot> slots) {
        this.slots = slots;
    }

    public static BufferPlan of(NetworkSpec spec, boolean inPlace) {
        Map<Integer, Slot> slots = new HashMap<>();
        if (!inPlace) return new BufferPlan(slots);
        var layers = spec.layers();
        for (int r = layers.size() - 1; r >= 0; r--) {
            if (!(layers.get(r) instanceof RouteSpec route) || isView(route)) continue;
            int offset = 0;
            int n = route.layers().length;
            for (int i = 0; i < n; ) {
                // a run of inputs taking consecutive channel ranges of one layer from its channel 0 (an imported
                // graph's Split then Concat, or a whole input) places that layer when the run covers all of it
                int layer = route.layers()[i];
                int j = i, covered = 0;
                while (j < n && route.layers()[j] == layer && route.channelOffset(j) == covered) {
                    covered += route.channelCount(j);
                    j++;
                }
                if (j == i) j = i + 1;
                int count = 0;
                for (int k = i; k < j; k++) count += route.channelCount(k);
                int target = aliasTarget(spec, layer);
                if (target >= 0 && covered == count && count % 8 == 0 && offset % 8 == 0 && !slots.containsKey(target)
                        && target != r && ownsBuffer(layers.get(target)) && layers.get(target).output().channels() == count
                        && (layer == target || layers.get(layer).output().channels() == count)) {
                    slots.put(target, new Slot(r, offset));
                }
                offset += count;
                i = j;
            }
        }
        return new BufferPlan(slots);
    }

    /** The slot the layer should write into, or null when it owns its buffer. */
    public Slot slot(int layer) {
        return slots.get(layer);
    }

    public int placedCount() {
        return slots.size();
    }

    /**
     * A route that is a view of its single input (whole, or a channel range starting on an 8-channel boundary): no
     * kernel, no buffer. A range starting elsewhere is copied into a buffer of its own, since convolutions read
     * 16-byte aligned inputs only.
     */
    static boolean isView(RouteSpec r) {
        return r.layers().length == 1 && (r.whole() || r.channelOffset(0) % 8 == 0);
    }

    /** Follows single-input, group-free routes to the layer whose output they name. */
    static int aliasTarget(NetworkSpec spec, int layer) {
        int t = layer;
        while (t >= 0 && spec.layers().get(t) instanceof RouteSpec r && r.layers().length == 1 && r.whole()) {
            t = r.layers()[0];
        }
        return t;
    }

    /** Layers whose output is a tensor they write themselves (so it can be written elsewhere). */
    private static boolean ownsBuffer(LayerSpec l) {
        return switch (l) {
            case ConvolutionalSpec c -> true;
            case MaxPoolSpec m -> true;
            case UpsampleSpec u -> true;
            case ShortcutSpec s -> true;
            case RouteSpec r -> !isView(r);
            default -> false;
        };
    }
}
