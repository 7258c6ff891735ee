package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import io.argus.trainer.data.InputSizes.Size;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The multi-scale schedule against Darknet's formula worked by hand (train_detector: round(r x init / 32 + 1) x 32,
 * a shrinking draw that grows falls back to the cfg's size, the largest at the first block and the last 100
 * iterations, nothing below 32), and its purity: the size of an iteration depends on (seed, iteration / 10) alone.
 */
@Budget(seconds = 2)
class MultiScaleTest {
    static MultiScale schedule(int w, int h, float factor) {
        return new MultiScale(w, h, factor, 7, 100_000);
    }

    @Test
    void sidesFollowDarknetsFormulaWorkedByHand() {
        MultiScale s = schedule(416, 416, 1.4f);
        // 1.4 x 416 / 32 + 1 = 19.2 -> 19 x 32
        assertEquals(new Size(608, 608), s.largest());
        // 416 / 1.4 / 32 + 1 = 10.29 -> 10 x 32
        assertEquals(new Size(320, 320), s.drawn(1 / 1.4f));
        // 0.8 x 416 / 32 + 1 = 11.4 -> 11 x 32
        assertEquals(new Size(352, 352), s.drawn(0.8f));
        // 1.2 x 416 / 32 + 1 = 16.6 -> 17 x 32
        assertEquals(new Size(544, 544), s.drawn(1.2f));
        // 1.0: 416 / 32 + 1 = 14 -> 448 (Darknet's + 1 grows even an unscaled input)
        assertEquals(new Size(448, 448), s.drawn(1.0f));
        // 0.99 x 416 / 32 + 1 = 13.87 -> 448 > 416 although shrinking: the cfg's size instead
        assertEquals(new Size(416, 416), s.drawn(0.99f));
    }

    @Test
    void aNonSquareInputScalesBothSidesWithTheSameDraw() {
        MultiScale s = schedule(608, 352, 1.4f);
        // w: 0.8 x 608 / 32 + 1 = 16.2 -> 512; h: 0.8 x 352 / 32 + 1 = 9.8 -> 320
        assertEquals(new Size(512, 320), s.drawn(0.8f));
        // w: 1.2 x 608 / 32 + 1 = 23.8 -> 768; h: 1.2 x 352 / 32 + 1 = 14.2 -> 448
        assertEquals(new Size(768, 448), s.drawn(1.2f));
        // w: 0.97 x 608 / 32 + 1 = 19.43 -> 608 (not above 608); h: 0.97 x 352 / 32 + 1 = 11.67 -> 384 > 352: both back
        assertEquals(new Size(608, 352), s.drawn(0.97f));
        // 1.4 x 608 / 32 + 1 = 27.6 -> 896; 1.4 x 352 / 32 + 1 = 16.4 -> 512
        assertEquals(new Size(896, 512), s.largest());
    }

    @Test
    void noSideBelowTheStepAndAnotherFactor() {
        // 0.72 x 16 / 32 + 1 = 1.36 -> 32 > 16 while shrinking: back to 16, then up to the 32 minimum
        assertEquals(new Size(32, 32), schedule(16, 16, 1.4f).drawn(0.72f));
        // random=2: 2 x 416 / 32 + 1 = 27 -> 864
        assertEquals(new Size(864, 864), schedule(416, 416, 2f).largest());
        assertThrows(IllegalArgumentException.class, () -> schedule(416, 416, 1f));
    }

    @Test
    void sizesChangeEveryTenIterationsAsAPureFunctionOfSeedAndBlock() {
        MultiScale a = new MultiScale(416, 416, 1.4f, 3, 100_000);
        MultiScale b = new MultiScale(416, 416, 1.4f, 3, 100_000);
        MultiScale other = new MultiScale(416, 416, 1.4f, 4, 100_000);
        Set<Size> seen = new HashSet<>();
        boolean differs = false;
        boolean below = false;
        boolean above = false;
        for (long block = 0; block < 400; block++) {
            Size first = a.at(block * 10);
            for (int i = 1; i < 10; i++) assertEquals(first, a.at(block * 10 + i), "iteration " + (block * 10 + i));
            assertEquals(first, b.at(block * 10 + 5), "the same seed, the same size");
            differs |= !first.equals(other.at(block * 10));
            assertEquals(0, first.width() % 32);
            assertTrue(first.width() >= 320 && first.width() <= 608, first.toString());
            assertEquals(first.width(), first.height());
            if (block > 0) {
                float r = a.scale(block);
                assertTrue(r >= 1 / 1.4f - 1e-6 && r <= 1.4f + 1e-6, "r = " + r);
                below |= r < 1;
                above |= r > 1;
                assertEquals(a.drawn(r), first);
            }
            seen.add(first);
        }
        assertTrue(differs, "another seed, other sizes");
        assertTrue(below && above, "draws on both sides of 1");
        assertEquals(new Size(608, 608), a.at(0), "the first block at the largest, as Darknet's first resize");
        // every size Darknet can give at 416 with 1.4: 320..608 by 32 (448..608 above 1, 320..416 below)
        assertEquals(10, seen.size(), seen.toString());
        assertEquals(a.sizes(), seen.stream().sorted((x, y) -> x.width() - y.width()).toList());
    }

    @Test
    void theLastHundredIterationsTrainAtTheLargest() {
        MultiScale s = new MultiScale(416, 416, 1.4f, 3, 1000);
        // Darknet: get_current_iteration > max_batches - 100 at the resize; here the blocks from 910 on
        for (long i = 910; i < 1000; i++) assertEquals(s.largest(), s.at(i));
        boolean smaller = false;
        for (long i = 10; i < 900; i += 10) smaller |= !s.at(i).equals(s.largest());
        assertTrue(smaller);
        // a run too short for a block outside those: one size, the largest
        assertEquals(List.of(new Size(608, 608)), new MultiScale(416, 416, 1.4f, 3, 100).sizes());
    }

    @Test
    void theCfgsRandomDecidesUnlessTheModeDoes() {
        NetworkSpec off = spec("random=0");
        NetworkSpec one = spec("random=1");
        NetworkSpec factor = spec("random=1.2");
        assertNull(MultiScale.of(off, MultiScale.Mode.CFG, 1, 1000));
        assertNull(MultiScale.of(one, MultiScale.Mode.OFF, 1, 1000));
        assertEquals(1.4f, MultiScale.of(one, MultiScale.Mode.CFG, 1, 1000).factor());
        assertEquals(1.4f, MultiScale.of(off, MultiScale.Mode.ON, 1, 1000).factor());
        assertEquals(1.2f, MultiScale.of(factor, MultiScale.Mode.CFG, 1, 1000).factor());
        assertEquals(1.2f, factor.yoloLayers().get(0).training().random(), "random read as a number, as Darknet");
        var e = assertThrows(IllegalArgumentException.class,
                () -> MultiScale.of(spec("random=0.5"), MultiScale.Mode.CFG, 1, 1000));
        assertTrue(e.getMessage().contains("random=0.5"), e.getMessage());
        assertEquals(MultiScale.Mode.ON, MultiScale.Mode.parse("On", "--multi-scale"));
        assertThrows(IllegalArgumentException.class, () -> MultiScale.Mode.parse("yes", "--multi-scale"));
        assertNotEquals(one.net().width(), one.withInput(64, 96).net().width());
        assertEquals(96, one.withInput(64, 96).net().height());
    }

    static NetworkSpec spec(String random) {
        return NetworkSpec.parse(Path.of("ms.cfg"), TinyTrainingCfg.text(2) + random + "\n", 0, 0);
    }
}
