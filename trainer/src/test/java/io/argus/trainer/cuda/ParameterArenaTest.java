package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The parameter arena's layout: KRSC with padded channels, weights first, round trip to Darknet's layout. */
@Budget(seconds = 5)
class ParameterArenaTest {
    static final String CFG = """
            [net]
            width=16
            height=16
            channels=3
            [convolutional]
            batch_normalize=1
            filters=12
            size=3
            stride=1
            pad=1
            activation=leaky
            [convolutional]
            filters=16
            size=1
            stride=1
            pad=0
            activation=linear
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            groups=2
            activation=mish
            """;

    @Test
    void weightsComeFirstInCudnnLayoutWithPaddedChannels() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("arena.cfg"), CFG, 0, 0);
        ParameterArena arena = new ParameterArena(spec);
        ParameterArena.Slot a = arena.slot(0);
        ParameterArena.Slot b = arena.slot(1);
        ParameterArena.Slot c = arena.slot(2);
        // layer 0: 3 input channels padded to 8, 12 filters padded to 16, 3x3
        assertEquals(8, a.inStride());
        assertEquals(16, a.paddedFilters());
        assertEquals(16L * 9 * 8, a.weightCount());
        assertEquals(0, a.weights());
        // layer 1 reads 12 channels (stride 16)
        assertEquals(a.weightCount(), b.weights());
        assertEquals(16L * 16, b.weightCount());
        // layer 2: grouped, 16 channels in 2 groups
        assertEquals(8, c.filterChannels());
        assertEquals(16L * 9 * 8, c.weightCount());
        long w = a.weightCount() + b.weightCount() + c.weightCount();
        assertEquals(w, arena.weightValues());
        // then biases and scales of each layer, in order
        assertEquals(w, a.biases());
        assertEquals(w + 12, a.scales());
        assertEquals(w + 24, b.biases());
        assertEquals(-1, b.scales());
        assertEquals(w + 40, c.biases());
        assertEquals(w + 56, c.scales());
        assertEquals(w + 72, arena.total());
        assertEquals(0, a.statistics());
        assertEquals(32, c.statistics());
        assertEquals(64, arena.statisticsValues());
    }

    @Test
    void darknetWeightsSurviveTheRoundTripAndPaddingIsZero() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("arena.cfg"), CFG, 0, 0);
        ModelWeights w = WeightsInit.darknet(spec, 4);
        SplittableRandom rnd = new SplittableRandom(2);
        for (int i : w.layerIndices()) {
            ConvWeights c = w.conv(i);
            for (float[] t : new float[][] {c.biases(), c.scales(), c.mean(), c.variance()}) {
                if (t != null) for (int k = 0; k < t.length; k++) t[k] = (float) rnd.nextDouble(0.5, 2);
            }
        }
        ParameterArena arena = new ParameterArena(spec);
        float[][] host = arena.fromDarknet(w);
        Map<Integer, ConvWeights> back = arena.toDarknet(host[0], host[1]);
        for (int i : w.layerIndices()) {
            ConvWeights x = w.conv(i), y = back.get(i);
            assertArrayEquals(x.weights(), y.weights(), "weights of layer " + i);
            assertArrayEquals(x.biases(), y.biases());
            if (x.scales() != null) {
                assertArrayEquals(x.scales(), y.scales());
                assertArrayEquals(x.mean(), y.mean());
                assertArrayEquals(x.variance(), y.variance());
            }
        }
        // element (filter f, channel i, row r, column q) of layer 0 sits at ((f * 3 + r) * 3 + q) * 8 + i
        float[] d = w.conv(0).weights();
        assertEquals(d[((5 * 3 + 2) * 3 + 1) * 3 + 0], host[0][((5 * 3 + 1) * 3 + 0) * 8 + 2]);
        // input channels 3..7 and filters 12..15 of layer 0 are padding
        ParameterArena.Slot a = arena.slot(0);
        int nonZeroPadding = 0;
        for (int f = 0; f < 16; f++) {
            for (int k = 0; k < 9; k++) {
                for (int i = 0; i < 8; i++) {
                    if ((f >= 12 || i >= 3) && host[0][(int) a.weights() + (f * 9 + k) * 8 + i] != 0) nonZeroPadding++;
                }
            }
        }
        assertEquals(0, nonZeroPadding);
        assertTrue(host[1][12] == 0 && host[1][16 + 12] == 0, "padded statistics are zero");
    }

    @Test
    void groupedConvolutionsNeedWholeGroupsOfEight() {
        String cfg = """
                [net]
                width=16
                height=16
                channels=3
                [convolutional]
                filters=4
                size=3
                stride=1
                pad=1
                activation=leaky
                [convolutional]
                filters=4
                size=3
                stride=1
                pad=1
                groups=2
                activation=leaky
                """;
        NetworkSpec spec = NetworkSpec.parse(Path.of("grouped.cfg"), cfg, 0, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ParameterArena(spec));
        assertTrue(e.getMessage().contains("layer 1") && e.getMessage().contains("multiples of 8"), e.getMessage());
    }
}
