package io.argus.detector.post;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.darknet.YoloSpec.NmsKind;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Darknet's NMS kinds on hand-computed cases. */
@Budget(seconds = 5)
class NmsTest {
    private static Candidate box(float x, float y, float w, float h, float p) {
        return new Candidate(x, y, w, h, p, new float[] {p});
    }

    @Test
    void iouOfHalfOverlappingBoxes() {
        // two 2x2 boxes shifted by 1: intersection 2, union 6
        assertEquals(1f / 3, Candidate.iou(box(0, 0, 2, 2, 1), box(1, 0, 2, 2, 1)), 1e-6);
        assertEquals(0f, Candidate.iou(box(0, 0, 1, 1, 1), box(5, 5, 1, 1, 1)));
    }

    @Test
    void dIouSubtractsNormalisedCentreDistance() {
        // enclosing box 3x2: c = 13; centre distance^2 d = 1; DIoU (beta 1) = 1/3 - 1/13
        Candidate a = box(0, 0, 2, 2, 1);
        Candidate b = box(1, 0, 2, 2, 1);
        assertEquals(1f / 3 - 1f / 13, Candidate.diou(a, b, 1f), 1e-6);
        assertEquals(1f / 3 - (float) Math.pow(1.0 / 13, 0.6), Candidate.diou(a, b, 0.6f), 1e-6);
    }

    @Test
    void greedyKeepsTheBestAndDropsOverlapsAboveThreshold() {
        List<Candidate> c = new ArrayList<>(List.of(box(0, 0, 2, 2, 0.5f), box(0.1f, 0, 2, 2, 0.9f),
                box(1, 0, 2, 2, 0.8f), box(10, 10, 2, 2, 0.3f)));
        Nms.apply(c, 1, 0.45f, NmsKind.DEFAULT, 0.6f);
        assertEquals(List.of(0f, 0.9f, 0.8f, 0.3f), c.stream().map(x -> x.prob[0]).toList(),
                "the 0.5 box overlaps the 0.9 box by 0.9: dropped; the 0.8 box overlaps by 0.38: kept");
    }

    @Test
    void suppressedBoxesDoNotSuppressOthers() {
        // B overlaps A (suppressed by A); C overlaps B but not A: C survives
        List<Candidate> c = new ArrayList<>(List.of(box(0, 0, 2, 2, 0.9f), box(0.5f, 0, 2, 2, 0.8f),
                box(1.6f, 0, 2, 2, 0.7f)));
        Nms.apply(c, 1, 0.45f, NmsKind.DEFAULT, 0.6f);
        assertEquals(List.of(0.9f, 0f, 0.7f), c.stream().map(x -> x.prob[0]).toList());
    }

    @Test
    void diouNmsKeepsBoxesWhoseCentresAreFarApart() {
        // IoU 1/3 > 0.3 drops B with plain IoU; DIoU (beta 1) = 0.256 < 0.3 keeps it
        List<Candidate> plain = new ArrayList<>(List.of(box(0, 0, 2, 2, 0.9f), box(1, 0, 2, 2, 0.8f)));
        Nms.apply(plain, 1, 0.3f, NmsKind.DEFAULT, 1f);
        assertEquals(0f, plain.get(1).prob[0]);
        List<Candidate> diou = new ArrayList<>(List.of(box(0, 0, 2, 2, 0.9f), box(1, 0, 2, 2, 0.8f)));
        Nms.apply(diou, 1, 0.3f, NmsKind.DIOU, 1f);
        assertEquals(0.8f, diou.get(1).prob[0]);
    }

    @Test
    void classesAreSuppressedIndependently() {
        Candidate a = new Candidate(0, 0, 2, 2, 0.9f, new float[] {0.9f, 0f});
        Candidate b = new Candidate(0, 0, 2, 2, 0.8f, new float[] {0.7f, 0.8f});
        List<Candidate> c = new ArrayList<>(List.of(a, b));
        Nms.apply(c, 2, 0.45f, NmsKind.DEFAULT, 0.6f);
        assertEquals(0f, b.prob[0]);
        assertEquals(0.8f, b.prob[1]);
    }
}
