package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * How the GPU network plans its gradients (host-side, no GPU): which tensor a layer's gradient is (a plain route is
 * its source's), and how many layers add into each, so a convolution that is its input's only consumer writes the
 * input gradient instead of adding to it.
 */
@Budget(seconds = 5)
class GpuTrainNetworkPlanTest {
    @Test
    void writersPerGradientTensor() {
        NetworkSpec spec = GpuTests.spec("pool-route", GpuLayerGradientTest.POOL_ROUTE);
        assertEquals(12, GpuTrainNetwork.owner(spec, 16), "route layers=-4 is layer 12's tensors");
        assertEquals(3, GpuTrainNetwork.owner(spec, 3));
        int[] w = GpuTrainNetwork.gradientWriters(spec);
        // 0 -> 1; 1 -> 2 (grouped route) and 7 (route -6,-1); 3 -> 4 and 5; 8 -> 9 and 10; 9 -> 10 and 19;
        // 12 -> 13 and, through route 16, 17; 14 -> yolo 15; 16 is nobody's tensor
        int[] expected = {1, 2, 1, 2, 1, 1, 1, 1, 2, 2, 1, 1, 2, 1, 1, 0, 0, 1, 1, 1, 1, 0};
        assertArrayEquals(expected, w);
    }

    @Test
    void aShortcutOfALayerWithItselfWritesTwice() {
        NetworkSpec spec = GpuTests.spec("shortcut", GpuLayerGradientTest.SHORTCUT_UPSAMPLE);
        int[] w = GpuTrainNetwork.gradientWriters(spec);
        assertEquals(2, w[0], "layer 0: conv 1 and shortcut 2");
        assertEquals(2, w[3], "layer 3: shortcut 4 adds it twice");
    }
}
