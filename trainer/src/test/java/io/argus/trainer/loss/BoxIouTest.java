package io.argus.trainer.loss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The IoU family's derivatives against central differences in double, on random overlapping and apart boxes. */
@Budget(seconds = 5)
class BoxIouTest {
    private static double value(IouKind kind, double[] p, double[] t, double alpha) {
        if (kind != IouKind.CIOU) return BoxIou.of(kind, p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3], true).value();
        // CIoU with alpha held at its value at the expansion point, as its derivative treats it
        double diou = BoxIou.of(IouKind.DIOU, p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3], true).value();
        double d = Math.atan(t[2] / t[3]) - Math.atan(p[2] / p[3]);
        return diou - alpha * 4 / (Math.PI * Math.PI) * d * d;
    }

    @ParameterizedTest
    @EnumSource(value = IouKind.class, names = {"IOU", "GIOU", "DIOU", "CIOU"})
    void derivativesMatchFiniteDifferences(IouKind kind) {
        SplittableRandom rnd = new SplittableRandom(kind.ordinal());
        int checked = 0;
        int apart = 0;
        for (int trial = 0; trial < 400; trial++) {
            double[] t = {rnd.nextDouble(0.2, 0.8), rnd.nextDouble(0.2, 0.8), rnd.nextDouble(0.05, 0.5),
                    rnd.nextDouble(0.05, 0.5)};
            double spread = trial % 2 == 0 ? 0.1 : 0.5;
            double[] p = {t[0] + rnd.nextDouble(-spread, spread), t[1] + rnd.nextDouble(-spread, spread),
                    t[2] * rnd.nextDouble(0.5, 2), t[3] * rnd.nextDouble(0.5, 2)};
            BoxIou.Gradient g = BoxIou.of(kind, p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3], true);
            assertEquals(BoxIou.iou(p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3]), g.iou(), 1e-12);
            double alpha = 0;
            if (kind == IouKind.CIOU) {
                double d = Math.atan(t[2] / t[3]) - Math.atan(p[2] / p[3]);
                double v = 4 / (Math.PI * Math.PI) * d * d;
                alpha = v / (1 - g.iou() + v + 0.000001);
            }
            assertEquals(value(kind, p, t, alpha), g.value(), 1e-12, "value");
            double[] analytic = {g.dx(), g.dy(), g.dw(), g.dh()};
            double eps = 1e-6;
            for (int k = 0; k < 4; k++) {
                double[] hi = p.clone();
                double[] lo = p.clone();
                hi[k] += eps;
                lo[k] -= eps;
                double numeric = (value(kind, hi, t, alpha) - value(kind, lo, t, alpha)) / (2 * eps);
                // one-sided kinks (an edge crossing an edge of the truth) are measure-zero; skip if we sit on one
                double edgeGap = edgeGap(p, t);
                if (edgeGap < 10 * eps) continue;
                assertEquals(numeric, analytic[k], 1e-5 + 1e-5 * Math.abs(numeric),
                        kind + " d/d" + "xywh".charAt(k) + " at pred " + java.util.Arrays.toString(p) + " truth "
                                + java.util.Arrays.toString(t));
                checked++;
            }
            if (g.iou() == 0) apart++;
        }
        assertTrue(checked > 1000, "checked " + checked);
        assertTrue(apart > 20, "boxes apart: " + apart);
    }

    /** Smallest distance between a predicted edge and a truth edge on the same axis. */
    private static double edgeGap(double[] p, double[] t) {
        double[] pe = {p[0] - p[2] / 2, p[0] + p[2] / 2, p[1] - p[3] / 2, p[1] + p[3] / 2};
        double[] te = {t[0] - t[2] / 2, t[0] + t[2] / 2, t[1] - t[3] / 2, t[1] + t[3] / 2};
        double gap = Double.MAX_VALUE;
        for (int a = 0; a < 2; a++) for (int b = 0; b < 2; b++) gap = Math.min(gap, Math.abs(pe[a] - te[b]));
        for (int a = 2; a < 4; a++) for (int b = 2; b < 4; b++) gap = Math.min(gap, Math.abs(pe[a] - te[b]));
        return gap;
    }

    @ParameterizedTest
    @EnumSource(value = IouKind.class, names = {"IOU", "GIOU", "DIOU", "CIOU"})
    void perfectPredictionIsOneAndStationary(IouKind kind) {
        BoxIou.Gradient g = BoxIou.of(kind, 0.4, 0.6, 0.2, 0.3, 0.4, 0.6, 0.2, 0.3, false);
        assertEquals(1, g.value(), 1e-9);
        assertEquals(1, g.iou(), 1e-12);
    }

    @ParameterizedTest
    @EnumSource(value = IouKind.class, names = {"GIOU", "DIOU", "CIOU"})
    void disjointBoxesStillPullTogether(IouKind kind) {
        // prediction left of the truth, not overlapping: IoU gives no gradient, the penalties move x right
        BoxIou.Gradient g = BoxIou.of(kind, 0.2, 0.5, 0.1, 0.1, 0.7, 0.5, 0.1, 0.1, false);
        assertEquals(0, g.iou());
        assertTrue(g.dx() > 0, "d" + kind + "/dx = " + g.dx());
        BoxIou.Gradient plain = BoxIou.of(IouKind.IOU, 0.2, 0.5, 0.1, 0.1, 0.7, 0.5, 0.1, 0.1, false);
        assertEquals(0, plain.dx());
    }
}
