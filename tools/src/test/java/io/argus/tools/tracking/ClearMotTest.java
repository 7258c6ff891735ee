package io.argus.tools.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CLEAR MOT on sequences small enough to count by hand. */
@Budget(seconds = 5)
class ClearMotTest {
    /**
     * Two objects over 5 frames: A at (0,0), B at (100,0), both 10x10, so 10 ground-truth boxes.
     * <pre>
     * frame  A                      B               extra
     * 1      track 11 (IoU 0.8)     track 12
     * 2      track 11 (IoU 0.8)     track 12
     * 3      track 11 (IoU 0.8)     track 13  <- B was 12: an ID switch
     * 4      nothing  <- FN          track 13
     * 5      track 11 (IoU 0.8)     track 13        track 14 far away <- FP
     * </pre>
     * TP = 9, FN = 1, FP = 1, IDSW = 1: MOTA = 1 - (1 + 1 + 1) / 10 = 0.7.
     * MOTP = (4 x 0.8 + 5 x 1.0) / 9 = 8.2 / 9. Track 11 is (0,2) 10x8: IoU 80 / 100 = 0.8.
     * A is tracked in 4 of 5 frames (0.8, not more: partly tracked), B in 5 of 5 (mostly tracked).
     * A's track is interrupted at frame 4 and resumed: one fragmentation.
     */
    @Test
    void handWorkedTwoObjectsFiveFrames() {
        Rows gt = new Rows().boxes(1, 5, 1, 0, 0).boxes(1, 5, 2, 100, 0);
        Rows res = new Rows();
        for (int f : new int[] {1, 2, 3, 5}) res.box(f, 11, 0, 2, 10, 8);
        res.boxes(1, 2, 12, 100, 0).boxes(3, 5, 13, 100, 0).box(5, 14, 300, 300);
        ClearMot m = ClearMot.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(9, m.truePositives());
        assertEquals(1, m.falseNegatives());
        assertEquals(1, m.falsePositives());
        assertEquals(1, m.idSwitches());
        assertEquals(0.7, m.mota(), 1e-12);
        assertEquals(8.2 / 9, m.motp(), 1e-12);
        assertEquals(1, m.mostlyTracked());
        assertEquals(1, m.partlyTracked());
        assertEquals(0, m.mostlyLost());
        assertEquals(1, m.fragmentations());
    }

    /**
     * Frame 1: object A matched to track 1. Frame 2: track 1 still covers A at IoU 0.6, track 2 covers it exactly.
     * CLEAR MOT keeps last frame's pair while it holds (IoU >= 0.5): A stays with 1, no ID switch, 2 is an FP.
     * MOTA = (2 - 1 - 0) / 2 = 0.5; MOTP = (1.0 + 0.6) / 2 = 0.8.
     */
    @Test
    void aPairThatStillOverlapsIsKeptOverABetterNewOne() {
        Rows gt = new Rows().boxes(1, 2, 1, 0, 0);
        Rows res = new Rows().box(1, 1, 0, 0).box(2, 1, 0, 0, 10, 6).box(2, 2, 0, 0);
        ClearMot m = ClearMot.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(0, m.idSwitches());
        assertEquals(1, m.falsePositives());
        assertEquals(0.5, m.mota(), 1e-12);
        assertEquals(0.8, m.motp(), 1e-12);
    }

    /** An ID switch is counted against the last match, however long ago; coming back to it is none. */
    @Test
    void idSwitchesLookBackOverGaps() {
        Rows gt = new Rows().boxes(1, 4, 1, 0, 0);
        // frame 1: track 1; frame 2: nothing; frame 3: track 2 (switch); frame 4: track 2 (none)
        ClearMot m = ClearMot.of(MotSequence.of(gt.list(), new Rows().box(1, 1, 0, 0).box(3, 2, 0, 0).box(4, 2, 0, 0).list()));
        assertEquals(1, m.idSwitches());
        assertEquals(1, m.falseNegatives());
        assertEquals((3 - 0 - 1) / 4.0, m.mota(), 1e-12);
        // frame 1: track 1; frame 2: only a false box far away; frame 3: track 1 again: no switch, one fragmentation
        Rows back = new Rows().box(1, 1, 0, 0).box(2, 5, 200, 200).box(3, 1, 0, 0).box(4, 1, 0, 0);
        m = ClearMot.of(MotSequence.of(gt.list(), back.list()));
        assertEquals(0, m.idSwitches());
        assertEquals(1, m.fragmentations());
        // TrackEval's quirk, kept: a frame without any result box does not end last frame's pairs (no fragmentation)
        m = ClearMot.of(MotSequence.of(gt.list(), new Rows().box(1, 1, 0, 0).box(3, 1, 0, 0).box(4, 1, 0, 0).list()));
        assertEquals(0, m.fragmentations());
    }

    /** Below IoU 0.5 (0.45 here: a 10x4.5 box inside a 10x10 one) nothing matches; another class never does. */
    @Test
    void poorOverlapAndOtherClassesDoNotMatch() {
        Rows gt = new Rows().box(1, 1, 0, 0).box(2, 1, 0, 0);
        Rows res = new Rows().box(1, 1, 0, 0, 10, 4.5).box(2, 1, 0, 0, 10, 10, 3, 1);
        ClearMot m = ClearMot.of(MotSequence.of(gt.list(), res.list()));
        assertEquals(0, m.truePositives());
        assertEquals(2, m.falsePositives());
        assertEquals(2, m.falseNegatives());
        assertEquals(-1.0, m.mota(), 1e-12);
        assertEquals(1, m.mostlyLost());
    }

    /**
     * Frames 1-4 of object A; in frame 2 it is 20% visible (behind something) and in frame 3 it is conf 0. With a
     * minimum visibility of 0.5, frame 2's box and the result on it are left out; frame 3's box goes but its result
     * stays (MOTChallenge's zero-marked boxes): 3 frames scored, TP 2 (frames 1, 4), FP 1 (frame 3).
     */
    @Test
    void hiddenAndZeroMarkedBoxesAreLeftOut() {
        var gt = new java.util.ArrayList<>(new Rows().box(1, 1, 0, 0).box(2, 1, 0, 0, 10, 10, 0, 0.2).box(4, 1, 0, 0)
                .list());
        gt.add(new MotRow(3, 1, 0, 0, 10, 10, 0, 0, 1));
        Rows res = new Rows().boxes(1, 4, 7, 0, 0);
        MotSequence s = MotSequence.of(gt, res.list(), 0.5);
        assertEquals(2, s.ignoredGtBoxes());
        assertEquals(1, s.ignoredTrackerBoxes());
        ClearMot m = ClearMot.of(s);
        assertEquals(2, m.truePositives());
        assertEquals(1, m.falsePositives());
        assertEquals(0, m.falseNegatives());
        // without a minimum visibility frame 2 counts: TP 3
        assertEquals(3, ClearMot.of(MotSequence.of(gt, res.list())).truePositives());
    }

    /** What TrackEval's code gives on {@link RandomSequence}. */
    @Test
    void matchesTrackEvalOnARandomSequence() {
        ClearMot m = ClearMot.of(RandomSequence.load());
        assertEquals(0.313953488372, m.mota(), 1e-11);
        assertEquals(0.754713263565, m.motp(), 1e-11);
        assertEquals(List.of(57, 24, 29, 6, 0, 3, 0, 17), List.of(m.truePositives(), m.falsePositives(),
                m.falseNegatives(), m.idSwitches(), m.mostlyTracked(), m.partlyTracked(), m.mostlyLost(),
                m.fragmentations()));
    }
}
