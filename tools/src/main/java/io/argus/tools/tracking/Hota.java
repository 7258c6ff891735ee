package io.argus.tools.tracking;

import java.util.stream.DoubleStream;

/**
 * Higher Order Tracking Accuracy (Luiten et al. 2020), as TrackEval computes it. For each localisation threshold
 * alpha = 0.05, 0.10, ..., 0.95: boxes are matched one to one in each frame, preferring pairs whose trajectories
 * agree over the whole video (the pair's IoU times their global alignment score), and a pair counts when its IoU >=
 * alpha. Then DetA = TP / (TP + FN + FP), AssA = the mean over true positives of their trajectories' association
 * IoU (TPA / (TPA + FNA + FPA)), HOTA(alpha) = sqrt(DetA x AssA). The reported figures are the means over alpha.
 */
public record Hota(double hota, double detA, double assA, double detRe, double detPr, double assRe, double assPr,
                   double locA, double[] hotaAtAlpha) {
    /** The localisation thresholds: 0.05 to 0.95 by 0.05. */
    public static final double[] ALPHAS = DoubleStream.iterate(0.05, a -> a < 0.96, a -> a + 0.05)
            .map(a -> Math.round(a * 100) / 100.0).toArray();

    public static Hota of(MotSequence s) {
        int gtIds = s.gtIdCount(), trIds = s.trackerIdCount();
        double[] gtFrames = new double[gtIds], trFrames = new double[trIds];
        // How much each pair of trajectories overlaps over the video: per frame, a soft IoU of the pair's box
        // similarity against everything both boxes are similar to
        double[][] potential = new double[gtIds][trIds];
        for (MotSequence.Frame f : s.frames()) {
            int[] gt = f.gtIds(), tr = f.trackerIds();
            double[][] sim = f.similarity();
            double[] rowSum = new double[gt.length], colSum = new double[tr.length];
            for (int i = 0; i < gt.length; i++) {
                for (int j = 0; j < tr.length; j++) {
                    rowSum[i] += sim[i][j];
                    colSum[j] += sim[i][j];
                }
            }
            for (int i = 0; i < gt.length; i++) {
                for (int j = 0; j < tr.length; j++) {
                    double denominator = rowSum[i] + colSum[j] - sim[i][j];
                    if (denominator > MotSequence.EPS) potential[gt[i]][tr[j]] += sim[i][j] / denominator;
                }
            }
            for (int g : gt) gtFrames[g]++;
            for (int t : tr) trFrames[t]++;
        }
        double[][] alignment = new double[gtIds][trIds];
        for (int g = 0; g < gtIds; g++) {
            for (int t = 0; t < trIds; t++) {
                alignment[g][t] = potential[g][t] / (gtFrames[g] + trFrames[t] - potential[g][t]);
            }
        }

        int n = ALPHAS.length;
        double[] tp = new double[n], fn = new double[n], fp = new double[n], locSum = new double[n];
        double[][][] matches = new double[n][gtIds][trIds];
        for (MotSequence.Frame f : s.frames()) {
            int[] gt = f.gtIds(), tr = f.trackerIds();
            double[][] sim = f.similarity();
            if (gt.length == 0 || tr.length == 0) {
                for (int a = 0; a < n; a++) {
                    fp[a] += tr.length;
                    fn[a] += gt.length;
                }
                continue;
            }
            double[][] score = new double[gt.length][tr.length];
            for (int i = 0; i < gt.length; i++) {
                for (int j = 0; j < tr.length; j++) score[i][j] = alignment[gt[i]][tr[j]] * sim[i][j];
            }
            int[] col = MaxScoreAssignment.solve(score);
            for (int a = 0; a < n; a++) {
                int matched = 0;
                for (int i = 0; i < gt.length; i++) {
                    if (col[i] < 0 || sim[i][col[i]] < ALPHAS[a] - MotSequence.EPS) continue;
                    matched++;
                    locSum[a] += sim[i][col[i]];
                    matches[a][gt[i]][tr[col[i]]]++;
                }
                tp[a] += matched;
                fn[a] += gt.length - matched;
                fp[a] += tr.length - matched;
            }
        }

        double[] hota = new double[n], detA = new double[n], assA = new double[n], detRe = new double[n],
                detPr = new double[n], assRe = new double[n], assPr = new double[n], locA = new double[n];
        for (int a = 0; a < n; a++) {
            double ass = 0, re = 0, pr = 0;
            for (int g = 0; g < gtIds; g++) {
                for (int t = 0; t < trIds; t++) {
                    double m = matches[a][g][t];
                    if (m == 0) continue;
                    // each of the pair's m true positives scores the pair's association IoU
                    ass += m * m / Math.max(1, gtFrames[g] + trFrames[t] - m);
                    re += m * m / Math.max(1, gtFrames[g]);
                    pr += m * m / Math.max(1, trFrames[t]);
                }
            }
            assA[a] = ass / Math.max(1, tp[a]);
            assRe[a] = re / Math.max(1, tp[a]);
            assPr[a] = pr / Math.max(1, tp[a]);
            detRe[a] = tp[a] / Math.max(1, tp[a] + fn[a]);
            detPr[a] = tp[a] / Math.max(1, tp[a] + fp[a]);
            detA[a] = tp[a] / Math.max(1, tp[a] + fn[a] + fp[a]);
            hota[a] = Math.sqrt(detA[a] * assA[a]);
            locA[a] = Math.max(1e-10, locSum[a]) / Math.max(1e-10, tp[a]);
        }
        return new Hota(mean(hota), mean(detA), mean(assA), mean(detRe), mean(detPr), mean(assRe), mean(assPr),
                mean(locA), hota);
    }

    private static double mean(double[] v) { return DoubleStream.of(v).average().orElse(0); }
}
