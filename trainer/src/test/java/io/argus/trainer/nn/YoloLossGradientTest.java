package io.argus.trainer.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.loss.BoxIou;
import io.argus.trainer.loss.IouKind;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The YOLO loss differentiated by its raw inputs against central differences: a network made of one [yolo] layer
 * over the input, so the input is the head's input z. MSE box loss: every entry. IoU kinds: objectness and class
 * entries by differences, box entries against the IoU derivative mapped as documented (Darknet's surrogate).
 */
@Budget(seconds = 10)
class YoloLossGradientTest {
    static final int GRID = 6;
    static final int CLASSES = 3;

    static String cfg(String iouLoss, float scaleXY, boolean newCoords) {
        return String.format(Locale.ROOT, "[net]\nwidth=%d\nheight=%d\nchannels=%d\n", GRID, GRID, 3 * (5 + CLASSES))
                + "[yolo]\nmask=0,1,2\nanchors=1,1, 2,1.5, 2.5,3, 4,4, 5,3, 6,6\nnum=6\nclasses=" + CLASSES
                + "\niou_loss=" + iouLoss + "\niou_normalizer=0.5\nobj_normalizer=0.8\ncls_normalizer=1.3"
                + "\nignore_thresh=1.0\nscale_x_y=" + scaleXY + "\nnew_coords=" + (newCoords ? 1 : 0) + "\n";
    }

    static List<List<Truth>> truths() {
        return List.of(
                List.of(new Truth(0.31f, 0.42f, 0.2f, 0.18f, 1), new Truth(0.75f, 0.2f, 0.35f, 0.4f, 2),
                        new Truth(0.52f, 0.81f, 0.14f, 0.3f, 0)),
                List.of(new Truth(0.6f, 0.55f, 0.5f, 0.45f, 0), new Truth(0.1f, 0.9f, 0.12f, 0.1f, 1)));
    }

    /** Loss and, into {@code gradient}, dLoss/dz for the current input. */
    static double loss(TrainNetwork net, float[] gradient) {
        net.forward(2);
        LossParts parts = net.loss(2, truths(), 1f);
        if (gradient != null) net.lossGradient(0).get(0, gradient);
        return parts.total();
    }

    @ParameterizedTest(name = "mse scale_x_y {0} new_coords {1}")
    @CsvSource({"1.0,false", "1.1,false", "2.0,true"})
    void mseLossGradientIsExact(float scaleXY, boolean newCoords) {
        NetworkSpec spec = GradientCheck.spec(cfg("mse", scaleXY, newCoords));
        check(spec, newCoords, true);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"iou", "giou", "diou", "ciou"})
    void iouLossesObjectnessAndClassesExactBoxAsDocumented(String kind) {
        NetworkSpec spec = GradientCheck.spec(cfg(kind, 1.05f, false));
        check(spec, false, false);
    }

    private void check(NetworkSpec spec, boolean newCoords, boolean boxExact) {
        YoloSpec head = spec.yoloLayers().get(0);
        try (Workers workers = new Workers(2);
             TrainContext ctx = new TrainContext(workers, false);
             TrainNetwork net = new TrainNetwork(spec, ModelWeights.zeros(spec), 2, ctx)) {
            SplittableRandom rnd = new SplittableRandom(3);
            FloatBuffer in = net.input();
            int size = head.output().size();
            int plane = head.output().plane();
            for (int i = 0; i < 2 * size; i++) {
                // new_coords inputs are already probabilities / sqrt-sizes: keep them in (0, 1)
                in.put(i, newCoords ? (float) rnd.nextDouble(0.1, 0.9) : (float) rnd.nextDouble(-2, 2));
            }
            float[] analytic = new float[2 * size];
            double base = loss(net, analytic);
            assertTrue(base > 0);
            List<String> failures = new ArrayList<>();
            int boxChecked = 0;
            double eps = 1e-3;
            for (int i = 0; i < 2 * size; i++) {
                int entry = (i % size) / plane % head.entries();
                if (entry < 4 && !boxExact) continue;
                float saved = in.get(i);
                in.put(i, saved + (float) eps);
                double plus = loss(net, null);
                in.put(i, saved - (float) eps);
                double minus = loss(net, null);
                in.put(i, saved);
                double numeric = (plus - minus) / (2 * eps);
                if (entry < 4 && analytic[i] != 0) boxChecked++;
                if (Math.abs(numeric - analytic[i]) > 2e-3 + 2e-3 * Math.abs(numeric)) {
                    failures.add(String.format(Locale.ROOT, "z[%d] (entry %d): analytic %.6f numeric %.6f", i, entry,
                            analytic[i], numeric));
                }
            }
            assertTrue(failures.isEmpty(), failures.size() + " mismatches:\n" + String.join("\n",
                    failures.subList(0, Math.min(20, failures.size()))));
            if (boxExact) {
                assertTrue(boxChecked >= 8, "box entries with a gradient: " + boxChecked);
            } else {
                loss(net, analytic);
                assertBoxGradientsAreTheMappedIouDerivative(net, head, analytic);
            }
        }
    }

    /** IoU kinds: d/dz of the box entries = -iou_normalizer dIoU/d(x, y, w exp(z), h exp(z)) for assigned anchors. */
    private void assertBoxGradientsAreTheMappedIouDerivative(TrainNetwork net, YoloSpec head, float[] analytic) {
        FloatBuffer out = net.output(0);
        FloatBuffer in = net.input();
        int plane = head.output().plane();
        int size = head.output().size();
        IouKind kind = IouKind.parse(head.training().iouLoss());
        int found = 0;
        for (int b = 0; b < 2; b++) {
            for (Truth t : truths().get(b)) {
                // the best anchor over all six by shape, as Darknet assigns
                int best = 0;
                double bestIou = 0;
                for (int n = 0; n < 6; n++) {
                    double iou = BoxIou.iou(0, 0, head.anchors()[2 * n] / GRID, head.anchors()[2 * n + 1] / GRID, 0, 0,
                            t.w(), t.h());
                    if (iou > bestIou) {
                        bestIou = iou;
                        best = n;
                    }
                }
                if (best > 2) continue;          // belongs to another head's mask
                int col = (int) (t.x() * GRID);
                int row = (int) (t.y() * GRID);
                int base = b * size + best * head.entries() * plane + row * GRID + col;
                double x = (col + out.get(base)) / GRID;
                double y = (row + out.get(base + plane)) / GRID;
                double w = Math.exp(in.get(base + 2 * plane)) * head.anchors()[2 * best] / GRID;
                double h = Math.exp(in.get(base + 3 * plane)) * head.anchors()[2 * best + 1] / GRID;
                BoxIou.Gradient g = BoxIou.of(kind, x, y, w, h, t, false);
                float norm = head.training().iouNormalizer();
                assertEquals(-norm * g.dx(), analytic[base], 1e-5, "dz_x");
                assertEquals(-norm * g.dy(), analytic[base + plane], 1e-5, "dz_y");
                assertEquals(-norm * g.dw() * Math.exp(in.get(base + 2 * plane)), analytic[base + 2 * plane], 1e-5);
                assertEquals(-norm * g.dh() * Math.exp(in.get(base + 3 * plane)), analytic[base + 3 * plane], 1e-5);
                found++;
            }
        }
        assertTrue(found >= 2, "truths assigned in this head: " + found);
    }
}
