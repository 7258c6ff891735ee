package io.argus.tools.tracking;

import java.util.Arrays;

/**
 * The CLEAR MOT metrics (Bernardin and Stiefelhagen 2008) as TrackEval computes them: in each frame ground truth and
 * results are matched one to one at IoU >= 0.5, keeping last frame's pairs where they still overlap enough (a pair
 * that held in the previous frame outweighs any number of new ones), then the best total IoU. A ground-truth object
 * matched to another result id than the last one it was matched to (in any earlier frame) is an ID switch.
 *
 * <p>MOTA = 1 - (FN + FP + IDSW) / ground-truth boxes; MOTP = mean IoU of the matched pairs. MT / PT / ML: objects
 * tracked for more than 80%, 20..80%, less than 20% of their frames; Frag: times a tracked object's match was
 * interrupted and resumed.
 */
public record ClearMot(double mota, double motp, int truePositives, int falsePositives, int falseNegatives,
                       int idSwitches, int mostlyTracked, int partlyTracked, int mostlyLost, int fragmentations) {
    public static final double IOU_THRESHOLD = 0.5;
    /** How much an old pair outweighs a new one when matching (TrackEval's 1000: more than any sum of IoUs). */
    private static final double CONTINUITY_BONUS = 1000;

    public static ClearMot of(MotSequence s) {
        int tp = 0, fp = 0, fn = 0, idsw = 0;
        double iouSum = 0;
        int[] lastMatch = filled(s.gtIdCount(), -1);          // result id each object was last matched to, ever
        int[] previousFrameMatch = filled(s.gtIdCount(), -1); // ... in the previous frame only
        int[] framesPresent = new int[s.gtIdCount()], framesMatched = new int[s.gtIdCount()];
        int[] fragments = new int[s.gtIdCount()];
        for (MotSequence.Frame f : s.frames()) {
            int[] gt = f.gtIds(), tr = f.trackerIds();
            for (int g : gt) framesPresent[g]++;
            // A frame without boxes on one side keeps last frame's pairs for the next one (as TrackEval does)
            if (gt.length == 0 || tr.length == 0) {
                fp += tr.length;
                fn += gt.length;
                continue;
            }
            int[] matchOfRow = filled(gt.length, -1);
            double[][] score = new double[gt.length][tr.length];
            for (int i = 0; i < gt.length; i++) {
                for (int j = 0; j < tr.length; j++) {
                    double iou = f.similarity()[i][j];
                    if (iou < IOU_THRESHOLD - MotSequence.EPS) continue; // 0: cannot match
                    score[i][j] = iou + (previousFrameMatch[gt[i]] == tr[j] ? CONTINUITY_BONUS : 0);
                }
            }
            int[] col = MaxScoreAssignment.solve(score);
            for (int i = 0; i < gt.length; i++) {
                if (col[i] >= 0 && score[i][col[i]] > MotSequence.EPS) matchOfRow[i] = col[i];
            }
            int matches = 0;
            int[] thisFrameMatch = filled(s.gtIdCount(), -1);
            for (int i = 0; i < gt.length; i++) {
                if (matchOfRow[i] < 0) continue;
                int g = gt[i], t = tr[matchOfRow[i]];
                if (lastMatch[g] >= 0 && lastMatch[g] != t) idsw++;
                lastMatch[g] = t;
                thisFrameMatch[g] = t;
                framesMatched[g]++;
                if (previousFrameMatch[g] < 0) fragments[g]++;
                iouSum += f.similarity()[i][matchOfRow[i]];
                matches++;
            }
            previousFrameMatch = thisFrameMatch;
            tp += matches;
            fn += gt.length - matches;
            fp += tr.length - matches;
        }
        int mt = 0, pt = 0, ml = 0, frag = 0;
        for (int g = 0; g < s.gtIdCount(); g++) {
            if (framesPresent[g] == 0) continue;
            double ratio = framesMatched[g] / (double) framesPresent[g];
            if (ratio > 0.8) mt++;
            else if (ratio >= 0.2) pt++;
            else ml++;
            if (fragments[g] > 0) frag += fragments[g] - 1;
        }
        double mota = (tp - fp - idsw) / (double) Math.max(1, tp + fn);
        double motp = iouSum / Math.max(1, tp);
        return new ClearMot(mota, motp, tp, fp, fn, idsw, mt, pt, ml, frag);
    }

    private static int[] filled(int n, int v) {
        int[] a = new int[n];
        Arrays.fill(a, v);
        return a;
    }
}
