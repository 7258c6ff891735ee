package io.argus.tools.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** HOTA on sequences small enough to work out by hand. */
@Budget(seconds = 5)
class HotaTest {
    @Test
    void alphasRunFrom005To095() {
        assertEquals(19, Hota.ALPHAS.length);
        assertEquals(0.05, Hota.ALPHAS[0], 1e-15);
        assertEquals(0.60, Hota.ALPHAS[11], 1e-15);
        assertEquals(0.95, Hota.ALPHAS[18], 1e-15);
    }

    /** Exact boxes, one id per object: every alpha matches everything; DetA = AssA = LocA = HOTA = 1. */
    @Test
    void perfectTrackingScoresOne() {
        Rows gt = new Rows().boxes(1, 6, 1, 0, 0).boxes(3, 8, 2, 40, 0);
        Rows res = new Rows().boxes(1, 6, 5, 0, 0).boxes(3, 8, 6, 40, 0);
        Hota h = Hota.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(1.0, h.hota(), 1e-12);
        assertEquals(1.0, h.detA(), 1e-12);
        assertEquals(1.0, h.assA(), 1e-12);
        assertEquals(1.0, h.locA(), 1e-12);
    }

    /**
     * One object over 10 frames, exact boxes; track X covers frames 1-5, track Y frames 6-10. Detection is perfect
     * (DetA = 1). Each of the 10 true positives belongs to a pair sharing 5 frames, the object has 10 and the track
     * 5: association IoU 5 / (10 + 5 - 5) = 0.5, so AssA = 0.5 and HOTA = sqrt(1 x 0.5) = 0.7071. AssRe = 5 / 10,
     * AssPr = 5 / 5.
     */
    @Test
    void anIdSwapHalfwayHalvesAssociation() {
        Rows gt = new Rows().boxes(1, 10, 1, 0, 0);
        Rows res = new Rows().boxes(1, 5, 1, 0, 0).boxes(6, 10, 2, 0, 0);
        Hota h = Hota.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(1.0, h.detA(), 1e-12);
        assertEquals(0.5, h.assA(), 1e-12);
        assertEquals(0.5, h.assRe(), 1e-12);
        assertEquals(1.0, h.assPr(), 1e-12);
        assertEquals(Math.sqrt(0.5), h.hota(), 1e-12);
    }

    /**
     * One object, one track, 4 frames, the track's box 10x6.2 inside the object's 10x10: IoU 0.62 everywhere. For
     * the 12 alphas up to 0.60 all 4 boxes match (HOTA 1, LocA 0.62); for the 7 from 0.65 none do (4 FN, 4 FP:
     * HOTA 0; LocA of no match is 1 by TrackEval's convention). HOTA = 12 / 19; LocA = (12 x 0.62 + 7) / 19 = 0.76.
     */
    @Test
    void localisationCountsOnlyBelowTheBoxesIoU() {
        Rows gt = new Rows().boxes(1, 4, 1, 0, 0);
        Rows res = new Rows();
        for (int f = 1; f <= 4; f++) res.box(f, 3, 0, 0, 10, 6.2);
        Hota h = Hota.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(1.0, h.hotaAtAlpha()[11], 1e-12);
        assertEquals(0.0, h.hotaAtAlpha()[12], 1e-12);
        assertEquals(12.0 / 19, h.hota(), 1e-12);
        assertEquals(0.76, h.locA(), 1e-12);
        assertEquals(12.0 / 19, h.detA(), 1e-12);
    }

    /**
     * One object tracked exactly over 4 frames, and a false track in frames 1-2 far away: DetA = 4 / (4 + 0 + 2),
     * AssA = 1 (the false boxes match nothing, so they weigh on detection only), HOTA = sqrt(2/3).
     */
    @Test
    void falsePositivesWeighOnDetectionOnly() {
        Rows gt = new Rows().boxes(1, 4, 1, 0, 0);
        Rows res = new Rows().boxes(1, 4, 1, 0, 0).boxes(1, 2, 2, 200, 200);
        Hota h = Hota.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(2.0 / 3, h.detA(), 1e-12);
        assertEquals(1.0, h.assA(), 1e-12);
        assertEquals(Math.sqrt(2.0 / 3), h.hota(), 1e-12);
    }

    /**
     * Two objects crossing: A at (0,0) and B at (100,0), frames 1-4. Track 1 is on A in frames 1-2 and on B in
     * 3-4; track 2 the other way round. The pairs, B-1, B-2 each share 2 of 4 frames: association IoU
     * 2 / (4 + 4 - 2) = 1/3 for every true positive, so AssA = 1/3 and HOTA = sqrt(1 x 1/3).
     */
    @Test
    void swappedIdsAtACrossing() {
        Rows gt = new Rows().boxes(1, 4, 1, 0, 0).boxes(1, 4, 2, 100, 0);
        Rows res = new Rows().boxes(1, 2, 1, 0, 0).boxes(3, 4, 1, 100, 0).boxes(1, 2, 2, 100, 0).boxes(3, 4, 2, 0, 0);
        Hota h = Hota.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(1.0, h.detA(), 1e-12);
        assertEquals(1.0 / 3, h.assA(), 1e-12);
        assertEquals(Math.sqrt(1.0 / 3), h.hota(), 1e-12);
    }

    /** What TrackEval's code gives on {@link RandomSequence}. */
    @Test
    void matchesTrackEvalOnARandomSequence() {
        Hota h = Hota.of(RandomSequence.load());
        assertEquals(0.301605111268, h.hota(), 1e-11);
        assertEquals(0.451608559223, h.detA(), 1e-11);
        assertEquals(0.202163123164, h.assA(), 1e-11);
        assertEquals(0.774986048170, h.locA(), 1e-11);
    }
}
