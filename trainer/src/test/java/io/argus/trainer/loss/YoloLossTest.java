package io.argus.trainer.loss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Darknet's assignment rules on hand-made predictions: which anchors are positives, negatives, ignored. */
@Budget(seconds = 5)
class YoloLossTest {
    static final int GRID = 4;
    static final float LOW = -5f;

    final YoloSpec head = NetworkSpec.parse(Path.of("t.cfg"), "[net]\nwidth=4\nheight=4\nchannels=" + 3 * 7 + "\n"
            + "[yolo]\nmask=0,1,2\nanchors=0.5,0.5, 1,1, 2,2, 3,3, 3.5,3.5, 4,4\nnum=6\nclasses=2\n"
            + "iou_loss=mse\nobj_normalizer=0.5\nignore_thresh=0.7\n", 0, 0).yoloLayers().get(0);
    final int plane = GRID * GRID;
    final FloatBuffer in = FloatBuffer.allocate(head.output().size());
    final FloatBuffer out = FloatBuffer.allocate(head.output().size());
    final FloatBuffer grad = FloatBuffer.allocate(head.output().size());

    YoloLossTest() {
        for (int i = 0; i < in.capacity(); i++) in.put(i, LOW);
        for (int a = 0; a < 3; a++) {
            for (int e = 0; e < 4; e++) for (int c = 0; c < plane; c++) in.put(index(a, e, c), 0f);
        }
    }

    int index(int anchor, int entry, int cell) {
        return (anchor * 7 + entry) * plane + cell;
    }

    LossParts run(List<Truth> truths) {
        for (int i = 0; i < in.capacity(); i++) {
            int entry = i / plane % 7;
            boolean logistic = entry != 2 && entry != 3;
            out.put(i, logistic ? Activation.logistic(in.get(i)) : in.get(i));
        }
        return new YoloLoss(head, GRID, GRID).image(out, in, 0, truths, grad, 1f);
    }

    static float logit(double p) {
        return (float) Math.log(p / (1 - p));
    }

    @Test
    void truthGoesToItsCellAndBestAnchorOthersAreNegatives() {
        Truth t = new Truth(0.375f, 0.625f, 0.25f, 0.25f, 1);   // cell (1, 2), shape of anchor 1 (1x1 px of 4)
        LossParts parts = run(List.of(t));
        int cell = 2 * GRID + 1;
        float low = Activation.logistic(LOW);
        for (int a = 0; a < 3; a++) {
            for (int c = 0; c < plane; c++) {
                float g = grad.get(index(a, 4, c));
                if (a == 1 && c == cell) {
                    assertEquals(0.5f * (low - 1), g, 1e-6, "positive objectness");
                    assertEquals(low - 0, grad.get(index(a, 5, c)), 1e-6, "class 0 target 0");
                    assertEquals(low - 1, grad.get(index(a, 6, c)), 1e-6, "class 1 target 1");
                } else {
                    assertEquals(0.5f * low, g, 1e-6, "negative objectness at anchor " + a + " cell " + c);
                    assertEquals(0f, grad.get(index(a, 5, c)), "no class term for a negative");
                }
            }
        }
        assertEquals(1, parts.assigned());
        // MSE box term: (2 - w h) iou_normalizer (output - target), tx = 0.375*4 - 1 = 0.5 = logistic(0)
        assertEquals(0f, grad.get(index(1, 0, cell)), 1e-6);
        double tw = Math.log(0.25 * 4 / 1.0);
        assertEquals((2 - 0.0625) * 0.75 * (0 - tw), grad.get(index(1, 2, cell)), 1e-6);
    }

    @Test
    void aGoodPredictionOfAnotherAnchorIsIgnoredOnlyWhenItAlsoPredictsAClass() {
        Truth t = new Truth(0.375f, 0.625f, 0.25f, 0.25f, 1);
        int cell = 2 * GRID + 1;
        // anchor 0 in the same cell predicts exactly the truth's box
        in.put(index(0, 0, cell), logit(0.5));
        in.put(index(0, 1, cell), logit(0.5));
        in.put(index(0, 2, cell), (float) Math.log(0.25 * 4 / 0.5));
        in.put(index(0, 3, cell), (float) Math.log(0.25 * 4 / 0.5));
        run(List.of(t));
        assertEquals(0.5f * Activation.logistic(LOW), grad.get(index(0, 4, cell)), 1e-6,
                "no class above 0.25: still a negative");
        in.put(index(0, 5, cell), 2f);
        run(List.of(t));
        assertEquals(0f, grad.get(index(0, 4, cell)), "IoU 1 > ignore_thresh with a class: ignored");
    }

    @Test
    void truthShapedForAnotherHeadGivesNoPositiveHere() {
        LossParts parts = run(List.of(new Truth(0.5f, 0.5f, 0.9f, 0.9f, 0)));  // best anchor 5 (4x4): mask 3,4,5
        assertEquals(0, parts.assigned());
        for (int a = 0; a < 3; a++) {
            for (int c = 0; c < plane; c++) assertTrue(grad.get(index(a, 4, c)) > 0, "all negatives");
        }
        assertEquals(0, parts.box());
        assertEquals(0, parts.classification());
    }

    @Test
    void gradientScalesLinearlyWithTheLossScale() {
        Truth t = new Truth(0.3f, 0.7f, 0.3f, 0.2f, 0);
        run(List.of(t));
        float[] one = new float[grad.capacity()];
        grad.get(0, one);
        new YoloLoss(head, GRID, GRID).image(out, in, 0, List.of(t), grad, 1024f);
        for (int i = 0; i < one.length; i++) assertEquals(1024f * one[i], grad.get(i), 1e-3 * Math.abs(one[i]) + 1e-6);
    }
}
