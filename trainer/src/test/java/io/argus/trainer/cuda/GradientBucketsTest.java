package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A data-parallel rank's gradient buckets (host-side, no GPU): on yolov4-tiny and yolov3 they tile the weights
 * exactly, each complete when its trigger layer's backward has run (every layer it covers is at or above the
 * trigger), in the order the backward pass completes them, each at least the bucket size but the last.
 */
@Budget(seconds = 5)
class GradientBucketsTest {
    static NetworkSpec cfg(String name) {
        return NetworkSpec.load(Path.of("..", "config", "models", "cfg", name + ".cfg").toAbsolutePath().normalize(),
                416, 416);
    }

    @Test
    void bucketsTileTheWeightsInBackwardOrder() {
        for (String name : new String[] {"yolov4-tiny", "yolov3", "yolov7-tiny"}) {
            ParameterArena arena = new ParameterArena(cfg(name));
            long size = 1L << 20;
            GradientBuckets b = new GradientBuckets(arena, size);
            List<GradientBuckets.Bucket> list = b.buckets();
            assertTrue(list.size() > 1, name + ": several buckets");
            long to = arena.weightValues();
            int lastTrigger = Integer.MAX_VALUE;
            for (int i = 0; i < list.size(); i++) {
                GradientBuckets.Bucket x = list.get(i);
                assertEquals(to, x.to(), name + " bucket " + i + " starts where the one before ended");
                assertTrue(x.trigger() < lastTrigger, name + ": triggers in backward order");
                if (i < list.size() - 1) assertTrue(x.values() >= size, name + " bucket " + i + " is full");
                // every layer whose weights lie in the bucket is at or above its trigger: all done at the trigger
                for (var e : arena.slots().entrySet()) {
                    ParameterArena.Slot s = e.getValue();
                    boolean inside = s.weights() >= x.from() && s.weights() < x.to();
                    if (inside) assertTrue(e.getKey() >= x.trigger(), name + ": layer " + e.getKey() + " in bucket " + i);
                }
                assertEquals(x, b.triggeredBy(x.trigger()));
                to = x.from();
                lastTrigger = x.trigger();
            }
            assertEquals(0, to, name + ": down to value 0");
            assertEquals(arena.weightValues(), b.tailFrom());
            assertEquals(arena.total(), b.tailTo());
        }
    }

    @Test
    void oneHugeBucketIsTheWholeWeightsTriggeredByTheFirstConvolution() {
        NetworkSpec spec = cfg("yolov4-tiny");
        ParameterArena arena = new ParameterArena(spec);
        GradientBuckets b = new GradientBuckets(arena, Long.MAX_VALUE / 2);
        assertEquals(1, b.buckets().size());
        int first = new ArrayList<>(arena.slots().keySet()).get(0);
        assertEquals(first, b.buckets().get(0).trigger());
        assertNull(b.triggeredBy(first + 1));
    }
}
