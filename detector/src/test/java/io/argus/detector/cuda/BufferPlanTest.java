package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Which route inputs are written into place: checked by hand on yolov4-tiny and on an imported graph's C2f (Split,
 * then Concat of the ranges), by invariants on every shipped cfg.
 */
@Budget(seconds = 5)
class BufferPlanTest {
    @Test
    void yolov4TinyWritesItsConcatenationsInPlace() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        BufferPlan plan = BufferPlan.of(spec, true);
        // route 6 = [5, 4]: 5 at channel 0, 4 (32 channels) after it
        assertEquals(new BufferPlan.Slot(6, 0), plan.slot(5));
        assertEquals(new BufferPlan.Slot(6, 32), plan.slot(4));
        // route 8 = [2, 7]: layer 2 (64 channels) first, then 7
        assertEquals(new BufferPlan.Slot(8, 0), plan.slot(2));
        assertEquals(new BufferPlan.Slot(8, 64), plan.slot(7));
        // layer 23 feeds routes 24 and 34: the later one owns it, route 24 copies it
        assertEquals(new BufferPlan.Slot(34, 128), plan.slot(23));
        assertEquals(new BufferPlan.Slot(24, 0), plan.slot(18));
        // a grouped single-input route is a view, never a place
        assertNull(plan.slot(3));
        assertEquals(13, plan.placedCount());
    }

    /**
     * YOLOv8's C2f as the importer lowers it: cv1's 32 channels split in two ranges, the second read by a bottleneck,
     * then concatenated with the bottleneck's output. cv1 is written into the concatenation (its two ranges are
     * consecutive from channel 0), the split is a view, and a range starting off an 8-channel boundary is a copy.
     */
    @Test
    void anImportedSplitThenConcatPlacesTheSplitLayer() {
        Shape in = new Shape(3, 8, 8), c32 = new Shape(32, 8, 8), c16 = new Shape(16, 8, 8);
        var layers = List.<LayerSpec>of(
                conv(0, in, c32),
                conv(1, c32, c32),                                                                     // cv1
                RouteSpec.ofRanges(2, 0, new int[] {1}, new Shape[] {c32}, new int[] {16}, new int[] {16}),
                conv(3, c16, c16),                                                                     // bottleneck
                RouteSpec.ofRanges(4, 0, new int[] {1, 1, 3}, new Shape[] {c32, c32, c16}, new int[] {0, 16, 0},
                        new int[] {16, 16, 16}),
                RouteSpec.ofRanges(5, 0, new int[] {4}, new Shape[] {new Shape(48, 8, 8)}, new int[] {4},
                        new int[] {12}));
        NetworkSpec spec = NetworkSpec.of(Path.of("c2f.onnx"), NetSettings.ofInput(8, 8, 3), layers);
        BufferPlan plan = BufferPlan.of(spec, true);
        assertEquals(new BufferPlan.Slot(4, 0), plan.slot(1));
        assertEquals(new BufferPlan.Slot(4, 32), plan.slot(3));
        assertTrue(BufferPlan.isView((RouteSpec) layers.get(2)), "a range from channel 16 is a view");
        assertTrue(!BufferPlan.isView((RouteSpec) layers.get(5)), "a range from channel 4 is copied");
        assertEquals(2, plan.placedCount());
    }

    private static ConvolutionalSpec conv(int index, Shape in, Shape out) {
        return new ConvolutionalSpec(index, 0, in, out, out.channels(), 3, 1, 1, 1, 1, Activation.SWISH, false);
    }

    @Test
    void noPlacementWhenDisabled() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        assertEquals(0, BufferPlan.of(spec, false).placedCount());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yolov3-tiny", "yolov3", "yolov4-tiny", "yolov4-tiny-3l", "yolov4", "yolov4-csp",
            "yolov7-tiny"})
    void slotsAreAlignedDisjointAndMatchTheirRoute(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), 416, 416);
        BufferPlan plan = BufferPlan.of(spec, true);
        Map<Integer, boolean[]> used = new HashMap<>();
        for (LayerSpec l : spec.layers()) {
            BufferPlan.Slot s = plan.slot(l.index());
            if (s == null) continue;
            RouteSpec r = (RouteSpec) spec.layers().get(s.route());
            assertTrue(s.route() > l.index(), name + ": layer " + l.index() + " placed in an earlier route");
            int channels = l.output().channels();
            assertEquals(0, channels % 8, name + ": layer " + l.index() + " has " + channels + " channels");
            assertEquals(0, s.channelOffset() % 8);
            assertTrue(s.channelOffset() + channels <= r.output().channels());
            // the slot is exactly where the route takes this layer (directly or through a reference route)
            boolean found = false;
            int offset = 0;
            for (int i = 0; i < r.layers().length; i++) {
                if (BufferPlan.aliasTarget(spec, r.layers()[i]) == l.index() && offset == s.channelOffset()) found = true;
                offset += r.channelCount(i);
            }
            assertTrue(found, name + ": layer " + l.index() + " slot does not match route " + s.route());
            boolean[] taken = used.computeIfAbsent(s.route(), k -> new boolean[r.output().channels()]);
            for (int c = s.channelOffset(); c < s.channelOffset() + channels; c++) {
                assertTrue(!taken[c], name + ": channel " + c + " of route " + s.route() + " written twice");
                taken[c] = true;
            }
        }
    }
}
