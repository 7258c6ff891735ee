package io.argus.tools.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** IDF1 on sequences small enough to count by hand. */
@Budget(seconds = 5)
class Idf1Test {
    /**
     * One object over frames 1-10. Track X follows it in frames 1-6; track Y in frames 7-10, and goes on alone in
     * frames 11-12. The best pairing gives the object X (6 shared frames, Y has 4): IDTP = 6; IDFN = 10 - 6 = 4;
     * IDFP = 12 result boxes - 6 = 6. IDP = 6 / 12 = 0.5, IDR = 6 / 10 = 0.6, IDF1 = 12 / (12 + 6 + 4) = 6 / 11.
     */
    @Test
    void aTrackBrokenInTwoKeepsItsLongerPart() {
        Rows gt = new Rows().boxes(1, 10, 1, 0, 0);
        Rows res = new Rows().boxes(1, 6, 100, 0, 0).boxes(7, 12, 200, 0, 0);
        Idf1 m = Idf1.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(6, m.idTruePositives());
        assertEquals(4, m.idFalseNegatives());
        assertEquals(6, m.idFalsePositives());
        assertEquals(0.5, m.idp(), 1e-12);
        assertEquals(0.6, m.idr(), 1e-12);
        assertEquals(6.0 / 11, m.idf1(), 1e-12);
    }

    /**
     * Why the matching is global: A is seen in frames 1-9, B (far from A) in frames 6-9. Track 1 follows A in
     * frames 1-5, then jumps to B for frames 6-9; track 2 follows A in frames 6-9.
     * Shared frames: A-1 = 5, A-2 = 4, B-1 = 4, B-2 = 0. Pairing greedily (A-1 first, the largest) would leave B
     * with 2: IDTP 5. The best pairing is A-2 and B-1: IDTP = 8. Boxes: 13 ground truth (9 + 4), 13 results (9 + 4):
     * IDFN = IDFP = 5, IDF1 = 16 / 26.
     */
    @Test
    void thePairingIsTheBestOverAllTrajectoriesNotGreedy() {
        Rows gt = new Rows().boxes(1, 9, 1, 0, 0).boxes(6, 9, 2, 100, 100);
        Rows res = new Rows().boxes(1, 5, 1, 0, 0).boxes(6, 9, 1, 100, 100).boxes(6, 9, 2, 0, 0);
        Idf1 m = Idf1.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(8, m.idTruePositives());
        assertEquals(5, m.idFalseNegatives());
        assertEquals(5, m.idFalsePositives());
        assertEquals(16.0 / 26, m.idf1(), 1e-12);
    }

    /** The two-object case of {@link ClearMotTest#handWorkedTwoObjectsFiveFrames}: A-11 share 4 frames, B-13 3. */
    @Test
    void handWorkedTwoObjectsFiveFrames() {
        Rows gt = new Rows().boxes(1, 5, 1, 0, 0).boxes(1, 5, 2, 100, 0);
        Rows res = new Rows();
        for (int f : new int[] {1, 2, 3, 5}) res.box(f, 11, 0, 2, 10, 8);
        res.boxes(1, 2, 12, 100, 0).boxes(3, 5, 13, 100, 0).box(5, 14, 300, 300);
        Idf1 m = Idf1.of(MotSequence.of(gt.list(), res.list()));
        // IDTP = 4 + 3 = 7 of 10 ground-truth boxes and 10 result boxes (4 + 2 + 3 + 1)
        assertEquals(7, m.idTruePositives());
        assertEquals(0.7, m.idf1(), 1e-12);
        assertEquals(0.7, m.idp(), 1e-12);
        assertEquals(0.7, m.idr(), 1e-12);
    }

    @Test
    void perfectTrackingScoresOneAndNothingScoresZero() {
        Rows gt = new Rows().boxes(1, 5, 1, 0, 0).boxes(2, 4, 2, 50, 50);
        Rows same = new Rows().boxes(1, 5, 8, 0, 0).boxes(2, 4, 9, 50, 50);
        assertEquals(1.0, Idf1.of(MotSequence.of(gt.list(), same.list())).idf1(), 1e-12);
        assertEquals(0.0, Idf1.of(MotSequence.of(gt.list(), new Rows().list())).idf1(), 1e-12);
    }

    /** What TrackEval's code gives on {@link RandomSequence}. */
    @Test
    void matchesTrackEvalOnARandomSequence() {
        Idf1 m = Idf1.of(RandomSequence.load());
        assertEquals(0.407185628743, m.idf1(), 1e-11);
        assertEquals(0.419753086420, m.idp(), 1e-11);
        assertEquals(0.395348837209, m.idr(), 1e-11);
        assertEquals(34, m.idTruePositives());
        assertEquals(47, m.idFalsePositives());
        assertEquals(52, m.idFalseNegatives());
    }
}
