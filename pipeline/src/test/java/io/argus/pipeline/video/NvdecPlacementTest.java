package io.argus.pipeline.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which GPU an NVDEC camera decodes on: the model's one GPU; of several the one decoding the fewest cameras, or the
 * camera's own while it serves; after a GPU is taken out, nothing more on it, and cameras there are told to move.
 */
@Budget(seconds = 5)
class NvdecPlacementTest {
    private static NvdecPlacement fresh(String name) {
        NvdecPlacement p = NvdecPlacement.of(name + "-" + System.nanoTime());
        return p;
    }

    @Test
    void aModelOnOneGpuDecodesThere() {
        NvdecPlacement p = fresh("one");
        assertEquals(2, p.take(-1, 2));
        assertEquals(2, p.take(2, 2));
        assertTrue(p.serves(2) && p.serves(5), "not on several GPUs: no camera is told to move");
    }

    @Test
    void camerasSpreadOverTheModelsGpusTheLeastUsedFirst() {
        NvdecPlacement p = fresh("spread");
        p.serving(new int[] {0, 1, 2});
        int[] got = new int[6];
        for (int i = 0; i < 6; i++) got[i] = p.take(-1, 0);
        assertEquals(Map.of(0, 2, 1, 2, 2, 2), p.cameras(), java.util.Arrays.toString(got));
        assertEquals(1, p.take(1, 0), "a camera's own decodeDevice while it serves");
        p.release(1);
        p.release(0);
        p.release(0);
        assertEquals(0, p.take(-1, 0), "device 0 now decodes the fewest");
        assertEquals(Map.of(0, 1, 1, 2, 2, 2), p.cameras());
    }

    @Test
    void afterAGpuIsTakenOutItsCamerasMoveToTheOthers() {
        NvdecPlacement p = fresh("failover");
        p.serving(new int[] {0, 1});
        int a = p.take(-1, 0);
        int b = p.take(-1, 0);
        assertEquals(java.util.Set.of(0, 1), java.util.Set.of(a, b));
        p.serving(new int[] {0});                  // GPU 1 taken out
        assertTrue(p.serves(0));
        assertEquals(false, p.serves(1), "the camera on GPU 1 is told to reconnect");
        p.release(1);
        assertEquals(0, p.take(-1, 0));
        assertEquals(0, p.take(1, 0), "a decodeDevice that was taken out is not kept");
        p.serving(new int[0]);                     // no GPU left: staying is as good as moving
        assertTrue(p.serves(0) && p.serves(1));
    }
}
