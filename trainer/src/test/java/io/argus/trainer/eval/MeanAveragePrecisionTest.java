package io.argus.trainer.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Box;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** COCO 101-point AP on cases worked out by hand. */
@Budget(seconds = 5)
class MeanAveragePrecisionTest {
    @Test
    void rankedMatchesGiveTheInterpolatedArea() {
        MeanAveragePrecision m = new MeanAveragePrecision(2);
        m.addTruth(0, 0, new Box(0, 0, 10, 10));
        m.addTruth(0, 0, new Box(20, 20, 10, 10));
        m.addDetection(0, 0, 0.9f, new Box(0, 0, 10, 10));       // TP
        m.addDetection(0, 0, 0.8f, new Box(50, 50, 10, 10));     // FP
        m.addDetection(0, 0, 0.7f, new Box(20, 20, 10, 10));     // TP
        // precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1; envelope 1, 2/3, 2/3:
        // recall levels 0..0.50 (51 of them) get 1, 0.51..1 (50) get 2/3
        double expected = (51 * 1.0 + 50 * (2.0 / 3)) / 101;
        assertEquals(expected, m.averagePrecisions(0.5)[0], 1e-12);
        assertTrue(Double.isNaN(m.averagePrecisions(0.5)[1]), "class without ground truth");
        assertEquals(expected, m.meanAveragePrecision(0.5), 1e-12, "mAP over classes with ground truth only");
    }

    @Test
    void iouThresholdAndDuplicates() {
        MeanAveragePrecision m = new MeanAveragePrecision(1);
        m.addTruth(0, 0, new Box(0, 0, 10, 10));
        m.addTruth(1, 0, new Box(0, 0, 10, 10));
        m.addDetection(0, 0, 0.9f, new Box(0, 0, 10, 6));         // IoU 0.6 with image 0's box
        m.addDetection(0, 0, 0.8f, new Box(0, 0, 10, 10));        // a second match of the same box: FP at 0.5
        m.addDetection(1, 0, 0.7f, new Box(0, 0, 10, 10));        // TP in image 1
        // at 0.5: TP, FP, TP -> as above
        assertEquals((51 + 50 * (2.0 / 3)) / 101, m.meanAveragePrecision(0.5), 1e-12);
        // at 0.75: FP, TP, TP -> precision 0, 1/2, 2/3, envelope 2/3 everywhere
        assertEquals(2.0 / 3, m.meanAveragePrecision(0.75), 1e-12);
        double sum = 0;
        for (int i = 0; i < 10; i++) sum += m.meanAveragePrecision(0.5 + 0.05 * i);
        assertEquals(sum / 10, m.meanAveragePrecision50to95(), 1e-12);
    }

    @Test
    void perfectDetectionsScoreOneAndMissesLowerRecall() {
        MeanAveragePrecision m = new MeanAveragePrecision(1);
        for (int i = 0; i < 4; i++) m.addTruth(i, 0, new Box(i, i, 5, 5));
        for (int i = 0; i < 2; i++) m.addDetection(i, 0, 0.9f, new Box(i, i, 5, 5));
        // recall reaches 1/2 at precision 1: levels 0..0.5 count
        assertEquals(51.0 / 101, m.meanAveragePrecision(0.5), 1e-12);
        for (int i = 2; i < 4; i++) m.addDetection(i, 0, 0.5f, new Box(i, i, 5, 5));
        assertEquals(1.0, m.meanAveragePrecision50to95(), 1e-12);
    }
}
