package io.argus.trainer.loss;

import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.darknet.YoloSpec.YoloTraining;
import io.argus.detector.post.YoloBox;
import java.nio.FloatBuffer;
import java.util.List;

/**
 * The loss of one [yolo] head as Darknet (AlexeyAB) defines it for YOLOv3/v4 (forward_yolo_layer), for one image.
 *
 * <p>Assignment, as Darknet: every anchor of every cell is a negative (objectness target 0) unless its predicted box
 * overlaps a truth by more than {@code ignore_thresh} (and predicts some class above 0.25), in which case its
 * objectness is ignored, or by more than {@code truth_thresh}, in which case it becomes a positive for that truth.
 * Each truth is then given to the cell holding its centre and to the anchor (over all the head's {@code num}
 * anchors) whose shape fits it best; if that anchor belongs to this head it becomes a positive: objectness target 1,
 * class targets one-hot (label smoothing optional), and a box term. With {@code iou_thresh < 1} every other anchor
 * of the head whose shape fits better than it also becomes a positive.
 *
 * <p>Terms, as functions of the head's raw inputs z (what the previous convolution produced):
 * <ul>
 *   <li>objectness and classes: binary cross-entropy of logistic(z) against the target, times
 *   {@code obj_normalizer} and {@code cls_normalizer} (Darknet applies the latter only with counters_per_class; with
 *   its default 1 this is the same);</li>
 *   <li>box, {@code iou_loss=mse}: Darknet's targets tx, ty (offset in the cell), tw, th (log of size over anchor)
 *   weighted by (2 - w h) {@code iou_normalizer}; x and y through a cross-entropy whose gradient is the output
 *   minus the target, w and h squared error;</li>
 *   <li>box, IoU kinds: {@code iou_normalizer} (1 - IoU<sub>kind</sub>) of the decoded box. Its gradient is mapped
 *   to z as Darknet does: x, y straight through (no logistic or grid factor), w, h times exp(z) (no anchor factor),
 *   clipped to {@code max_delta}; so it is a surrogate, exact only up to those factors.</li>
 * </ul>
 * Gradients are dLoss/dz (Darknet's delta with the opposite sign) times a caller-given factor (the loss scale).
 */
public final class YoloLoss {
    private final YoloSpec head;
    private final YoloTraining cfg;
    private final IouKind kind;
    private final int netW;
    private final int netH;
    private final int lw;
    private final int lh;
    private final int plane;
    private final int anchors;
    private final int classes;

    public YoloLoss(YoloSpec head, int netW, int netH) {
        this.head = head;
        this.cfg = head.training();
        this.kind = IouKind.parse(cfg.iouLoss());
        this.netW = netW;
        this.netH = netH;
        this.lw = head.output().width();
        this.lh = head.output().height();
        this.plane = lw * lh;
        this.anchors = head.anchorsPerCell();
        this.classes = head.classes();
    }

    public YoloSpec head() { return head; }

    public IouKind kind() { return kind; }

    /** Targets of one image, built up by the assignment and turned into loss and gradient at the end. */
    private final class Targets {
        final float[] objTarget = new float[anchors * plane];
        final float[] objWeight = new float[anchors * plane];
        final boolean[] classAssigned = new boolean[anchors * plane];
        final float[] classTarget = new float[anchors * plane * classes];
        double box;
        int assigned;
        double iouSum;
    }

    private int index(int offset, int anchor, int entry, int cell) {
        return offset + (anchor * head.entries() + entry) * plane + cell;
    }

    /**
     * Loss of one image.
     *
     * @param output   the head's activated output; this image starts at {@code offset}
     * @param input    the head's raw input (same layout)
     * @param truths   the image's objects, relative to the network input
     * @param gradient receives dLoss/dInput x {@code gradientScale} at {@code offset} (overwritten)
     */
    public LossParts image(FloatBuffer output, FloatBuffer input, int offset, List<Truth> truths, FloatBuffer gradient,
                           float gradientScale) {
        for (int i = offset; i < offset + head.output().size(); i++) gradient.put(i, 0f);
        Targets tg = new Targets();
        java.util.Arrays.fill(tg.objWeight, cfg.objNormalizer());
        assignByPrediction(output, input, offset, truths, gradient, gradientScale, tg);
        assignByTruth(output, input, offset, truths, gradient, gradientScale, tg);
        if (cfg.iouThresh() < 1f) averageBoxGradients(output, offset, gradient, tg);
        return finish(output, input, offset, gradient, gradientScale, tg);
    }

    /** Darknet's first loop: negatives, ignored anchors, and positives beyond truth_thresh. */
    private void assignByPrediction(FloatBuffer out, FloatBuffer in, int offset, List<Truth> truths, FloatBuffer grad,
                                    float gs, Targets tg) {
        for (int a = 0; a < anchors; a++) {
            for (int cell = 0; cell < plane; cell++) {
                int col = cell % lw;
                int row = cell / lw;
                float[] pred = decode(out, in, offset, a, cell, col, row);
                double bestMatch = 0;
                double best = 0;
                int bestT = -1;
                boolean classMatch = anyClassAbove(out, offset, a, cell, 0.25f);
                for (int t = 0; t < truths.size(); t++) {
                    Truth truth = truths.get(t);
                    double iou = BoxIou.iou(pred[0], pred[1], pred[2], pred[3], truth.x(), truth.y(), truth.w(),
                            truth.h());
                    if (classMatch && iou > bestMatch) bestMatch = iou;
                    if (iou > best) {
                        best = iou;
                        bestT = t;
                    }
                }
                int k = a * plane + cell;
                if (bestMatch > cfg.ignoreThresh()) {
                    if (cfg.objectnessSmooth()) {
                        tg.objTarget[k] = (float) bestMatch;   // a soft target instead of ignoring
                    } else {
                        tg.objWeight[k] = 0;
                    }
                }
                if (best > cfg.truthThresh() && bestT >= 0) {
                    Truth truth = truths.get(bestT);
                    tg.objWeight[k] = cfg.objNormalizer();
                    tg.objTarget[k] = cfg.objectnessSmooth() ? (float) (best * best) : 1f;
                    setClassTargets(tg, k, truth.classId());
                    boxTerm(out, in, offset, a, head.mask()[a], cell, col, row, truth, grad, gs, tg);
                }
            }
        }
    }

    /** Darknet's second loop: each truth to its cell and best-fitting anchor (and, with iou_thresh, more anchors). */
    private void assignByTruth(FloatBuffer out, FloatBuffer in, int offset, List<Truth> truths, FloatBuffer grad,
                               float gs, Targets tg) {
        int total = head.anchors().length / 2;
        for (Truth truth : truths) {
            if (truth.classId() < 0 || truth.classId() >= classes) continue;
            int col = Math.min(lw - 1, Math.max(0, (int) (truth.x() * lw)));
            int row = Math.min(lh - 1, Math.max(0, (int) (truth.y() * lh)));
            int cell = row * lw + col;
            double bestIou = 0;
            int bestN = 0;
            for (int n = 0; n < total; n++) {
                double iou = shapeIou(n, truth);
                if (iou > bestIou) {
                    bestIou = iou;
                    bestN = n;
                }
            }
            for (int a = 0; a < anchors; a++) {
                int n = head.mask()[a];
                boolean take = n == bestN || (cfg.iouThresh() < 1f && shapeIou(n, truth) > cfg.iouThresh());
                if (!take) continue;
                int k = a * plane + cell;
                float[] pred = boxTerm(out, in, offset, a, n, cell, col, row, truth, grad, gs, tg);
                tg.assigned++;
                tg.iouSum += BoxIou.iou(pred[0], pred[1], pred[2], pred[3], truth.x(), truth.y(), truth.w(), truth.h());
                if (cfg.objectnessSmooth()) {
                    if (tg.objWeight[k] == 0 || tg.objTarget[k] == 0) {
                        tg.objWeight[k] = cfg.objNormalizer();
                        tg.objTarget[k] = 1f;
                    }
                } else {
                    tg.objWeight[k] = cfg.objNormalizer();
                    tg.objTarget[k] = 1f;
                }
                setClassTargets(tg, k, truth.classId());
            }
        }
    }

    /** IoU of anchor n's shape with the truth's, both centred at the origin. */
    private double shapeIou(int n, Truth truth) {
        double aw = head.anchors()[2 * n] / netW;
        double ah = head.anchors()[2 * n + 1] / netH;
        return BoxIou.iou(0, 0, aw, ah, 0, 0, truth.w(), truth.h());
    }

    /** delta_yolo_class: one-hot (smoothed) targets; a second truth on the same anchor only raises its class. */
    private void setClassTargets(Targets tg, int k, int classId) {
        float eps = cfg.labelSmoothEps();
        float positive = eps != 0 ? 1 - eps + 0.5f * eps : 1f;
        float negative = eps != 0 ? 0.5f * eps : 0f;
        int base = k * classes;
        if (!tg.classAssigned[k]) {
            for (int c = 0; c < classes; c++) tg.classTarget[base + c] = negative;
            tg.classAssigned[k] = true;
        }
        tg.classTarget[base + classId] = positive;
    }

    private boolean anyClassAbove(FloatBuffer out, int offset, int a, int cell, float thresh) {
        for (int c = 0; c < classes; c++) if (out.get(index(offset, a, 5 + c, cell)) > thresh) return true;
        return false;
    }

    /** Darknet's get_yolo_box (the detector's one decode): {x, y, w, h} relative to the network input. */
    private float[] decode(FloatBuffer out, FloatBuffer in, int offset, int a, int cell, int col, int row) {
        return YoloBox.decode(head, a, col, row, out.get(index(offset, a, 0, cell)), out.get(index(offset, a, 1, cell)),
                in.get(index(offset, a, 2, cell)), in.get(index(offset, a, 3, cell)), netW, netH);
    }

    /**
     * Adds the box term of one truth on anchor slot {@code a} (anchor {@code n} of all) of a cell: loss into the
     * targets, gradient into {@code grad}. Returns the decoded prediction.
     */
    private float[] boxTerm(FloatBuffer out, FloatBuffer in, int offset, int a, int n, int cell, int col, int row,
                            Truth truth, FloatBuffer grad, float gs, Targets tg) {
        int ix = index(offset, a, 0, cell);
        int iy = index(offset, a, 1, cell);
        int iw = index(offset, a, 2, cell);
        int ih = index(offset, a, 3, cell);
        float[] pred = decode(out, in, offset, a, cell, col, row);
        float aw = head.anchors()[2 * n];
        float ah = head.anchors()[2 * n + 1];
        float norm = cfg.iouNormalizer();
        if (kind == IouKind.MSE) {
            double weight = (2 - truth.w() * truth.h()) * norm;
            double tx = truth.x() * lw - col;
            double ty = truth.y() * lh - row;
            double tw;
            double th;
            if (head.newCoords()) {
                tw = Math.sqrt(truth.w() * netW / (4 * aw));
                th = Math.sqrt(truth.h() * netH / (4 * ah));
            } else {
                tw = Math.log(truth.w() * netW / aw);
                th = Math.log(truth.h() * netH / ah);
            }
            double ox = out.get(ix);
            double oy = out.get(iy);
            double zw = in.get(iw);
            double zh = in.get(ih);
            tg.box += weight * (centreLoss(in.get(ix), ox, tx) + centreLoss(in.get(iy), oy, ty)
                    + 0.5 * (zw - tw) * (zw - tw) + 0.5 * (zh - th) * (zh - th));
            add(grad, ix, gs * weight * (ox - tx));
            add(grad, iy, gs * weight * (oy - ty));
            add(grad, iw, gs * weight * (zw - tw));
            add(grad, ih, gs * weight * (zh - th));
        } else {
            BoxIou.Gradient g = BoxIou.of(kind, pred[0], pred[1], pred[2] == 0 ? 1 : pred[2],
                    pred[3] == 0 ? 1 : pred[3], truth, false);
            tg.box += norm * (1 - g.value());
            double dw = g.dw();
            double dh = g.dh();
            if (!head.newCoords()) {
                dw *= Math.exp(in.get(iw));
                dh *= Math.exp(in.get(ih));
            }
            add(grad, ix, gs * -clip(norm * g.dx()));
            add(grad, iy, gs * -clip(norm * g.dy()));
            add(grad, iw, gs * -clip(norm * dw));
            add(grad, ih, gs * -clip(norm * dh));
        }
        return pred;
    }

    /**
     * Loss of a centre coordinate whose gradient by the raw input is (output - target): with the logistic, a
     * cross-entropy of the logistic against the target mapped through scale_x_y, scaled by scale_x_y (minus its
     * minimum, so it is 0 at the target); with new_coords, squared error divided by scale_x_y.
     */
    private double centreLoss(double z, double output, double target) {
        double s = head.scaleXY();
        if (head.newCoords()) return 0.5 * (output - target) * (output - target) / s;
        double p = (target + 0.5 * (s - 1)) / s;
        double entropy = p > 0 && p < 1 ? -(p * Math.log(p) + (1 - p) * Math.log(1 - p)) : 0;
        return s * (crossEntropyWithLogit(z, p) - entropy);
    }

    /** -(p log sigma(z) + (1 - p) log(1 - sigma(z))), stable for large |z|. */
    static double crossEntropyWithLogit(double z, double p) {
        double softplus = z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
        return softplus - p * z;
    }

    private double clip(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return 0;
        float max = cfg.maxDelta();
        if (max != Float.MAX_VALUE) v = Math.max(-max, Math.min(max, v));
        return v;
    }

    private static void add(FloatBuffer g, int i, double v) {
        g.put(i, (float) (g.get(i) + v));
    }

    /** averages_yolo_deltas: with iou_thresh, a positive's box gradient is divided by its number of positive classes. */
    private void averageBoxGradients(FloatBuffer out, int offset, FloatBuffer grad, Targets tg) {
        for (int a = 0; a < anchors; a++) {
            for (int cell = 0; cell < plane; cell++) {
                int k = a * plane + cell;
                if (!tg.classAssigned[k]) continue;
                int positives = 0;
                for (int c = 0; c < classes; c++) {
                    if (tg.classTarget[k * classes + c] > out.get(index(offset, a, 5 + c, cell))) positives++;
                }
                if (positives <= 1) continue;
                for (int e = 0; e < 4; e++) {
                    int i = index(offset, a, e, cell);
                    grad.put(i, grad.get(i) / positives);
                }
            }
        }
    }

    /** Objectness and class terms from the targets; the box terms are already in. */
    private LossParts finish(FloatBuffer out, FloatBuffer in, int offset, FloatBuffer grad, float gs, Targets tg) {
        double objectness = 0;
        double classification = 0;
        boolean logistic = !head.newCoords();
        float clsNorm = cfg.clsNormalizer();
        for (int a = 0; a < anchors; a++) {
            for (int cell = 0; cell < plane; cell++) {
                int k = a * plane + cell;
                float w = tg.objWeight[k];
                if (w != 0) {
                    int io = index(offset, a, 4, cell);
                    objectness += w * binaryLoss(in.get(io), out.get(io), tg.objTarget[k], logistic);
                    add(grad, io, gs * w * (out.get(io) - tg.objTarget[k]));
                }
                if (!tg.classAssigned[k]) continue;
                for (int c = 0; c < classes; c++) {
                    int ic = index(offset, a, 5 + c, cell);
                    float target = tg.classTarget[k * classes + c];
                    classification += clsNorm * binaryLoss(in.get(ic), out.get(ic), target, logistic);
                    add(grad, ic, gs * clsNorm * (out.get(ic) - target));
                }
            }
        }
        return new LossParts(tg.box, objectness, classification, tg.assigned, tg.iouSum);
    }

    /**
     * The loss whose gradient by z is (output - target): cross-entropy with the logit when the head applies the
     * logistic; squared error when the input already is the probability (new_coords).
     */
    private static double binaryLoss(double z, double output, double target, boolean logistic) {
        if (!logistic) return 0.5 * (output - target) * (output - target);
        return crossEntropyWithLogit(z, target);
    }
}
