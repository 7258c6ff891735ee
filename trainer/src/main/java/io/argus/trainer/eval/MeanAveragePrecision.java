package io.argus.trainer.eval;

import io.argus.detector.Box;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * COCO-style average precision: per class, detections ranked by confidence are matched greedily to unmatched
 * ground truths of their image at an IoU threshold; precision is made monotone (the best precision at any higher
 * recall) and averaged over the 101 recall points 0, 0.01, ..., 1. mAP averages over the classes that have ground
 * truth; mAP@0.5:0.95 averages mAP over the thresholds 0.5, 0.55, ..., 0.95.
 */
public final class MeanAveragePrecision {
    /** A detection or ground-truth box of one image. */
    public record Labeled(int image, int classId, float confidence, Box box) {}

    private final int classes;
    private final List<Labeled> detections = new ArrayList<>();
    private final List<Labeled> truths = new ArrayList<>();

    public MeanAveragePrecision(int classes) {
        this.classes = classes;
    }

    public void addDetection(int image, int classId, float confidence, Box box) {
        detections.add(new Labeled(image, classId, confidence, box));
    }

    public void addTruth(int image, int classId, Box box) {
        truths.add(new Labeled(image, classId, 1, box));
    }

    public int truthCount() { return truths.size(); }

    /** AP of each class at the threshold (NaN for a class without ground truth). */
    public double[] averagePrecisions(double iouThreshold) {
        double[] ap = new double[classes];
        for (int c = 0; c < classes; c++) ap[c] = averagePrecision(c, iouThreshold);
        return ap;
    }

    public double meanAveragePrecision(double iouThreshold) {
        double sum = 0;
        int n = 0;
        for (double ap : averagePrecisions(iouThreshold)) {
            if (Double.isNaN(ap)) continue;
            sum += ap;
            n++;
        }
        return n == 0 ? 0 : sum / n;
    }

    /** Mean of mAP over IoU thresholds 0.5, 0.55, ..., 0.95. */
    public double meanAveragePrecision50to95() {
        double sum = 0;
        for (int i = 0; i < 10; i++) sum += meanAveragePrecision(0.5 + 0.05 * i);
        return sum / 10;
    }

    double averagePrecision(int classId, double iouThreshold) {
        List<Labeled> gt = new ArrayList<>();
        for (Labeled t : truths) if (t.classId() == classId) gt.add(t);
        if (gt.isEmpty()) return Double.NaN;
        List<Labeled> dets = new ArrayList<>();
        for (Labeled d : detections) if (d.classId() == classId) dets.add(d);
        dets.sort(Comparator.comparingDouble((Labeled d) -> -d.confidence()));
        boolean[] used = new boolean[gt.size()];
        double[] precision = new double[dets.size()];
        double[] recall = new double[dets.size()];
        int tp = 0;
        for (int i = 0; i < dets.size(); i++) {
            Labeled d = dets.get(i);
            int best = -1;
            double bestIou = iouThreshold;
            for (int j = 0; j < gt.size(); j++) {
                Labeled t = gt.get(j);
                if (used[j] || t.image() != d.image()) continue;
                double iou = d.box().iou(t.box());
                if (iou >= bestIou) {
                    bestIou = iou;
                    best = j;
                }
            }
            if (best >= 0) {
                used[best] = true;
                tp++;
            }
            precision[i] = tp / (double) (i + 1);
            recall[i] = tp / (double) gt.size();
        }
        // monotone precision envelope, right to left
        for (int i = dets.size() - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
        double sum = 0;
        int k = 0;
        for (int r = 0; r <= 100; r++) {
            double level = r / 100.0;
            while (k < dets.size() && recall[k] < level) k++;
            sum += k < dets.size() ? precision[k] : 0;
        }
        return sum / 101;
    }
}
