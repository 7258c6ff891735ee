package io.argus.tools.tracking;

/**
 * Identity metrics (Ristani et al. 2016) as TrackEval computes them: each ground-truth trajectory is paired with at
 * most one result trajectory, and vice versa, so that the pairs share the most frames (a frame is shared when the
 * two boxes overlap at IoU >= 0.5); the pairing is one global minimum-cost bipartite matching of whole trajectories.
 * Boxes of a pair in such a frame are identity true positives; every other ground-truth box is an IDFN, every other
 * result box an IDFP.
 *
 * <p>IDP = IDTP / (IDTP + IDFP), IDR = IDTP / (IDTP + IDFN), IDF1 = 2 IDTP / (2 IDTP + IDFP + IDFN).
 */
public record Idf1(double idf1, double idp, double idr, int idTruePositives, int idFalsePositives,
                   int idFalseNegatives) {
    public static final double IOU_THRESHOLD = 0.5;

    public static Idf1 of(MotSequence s) {
        // shared[g][t]: frames where object g and result track t overlap enough
        double[][] shared = new double[s.gtIdCount()][s.trackerIdCount()];
        for (MotSequence.Frame f : s.frames()) {
            for (int i = 0; i < f.gtIds().length; i++) {
                for (int j = 0; j < f.trackerIds().length; j++) {
                    if (f.similarity()[i][j] >= IOU_THRESHOLD) shared[f.gtIds()[i]][f.trackerIds()[j]]++;
                }
            }
        }
        // The pairing of least IDFN + IDFP is the one of most shared frames: each pair's cost is
        // (frames of g + frames of t - 2 shared), an unpaired trajectory costs its frames
        int[] pairOf = MaxScoreAssignment.solve(shared);
        int idtp = 0;
        for (int g = 0; g < pairOf.length; g++) if (pairOf[g] >= 0) idtp += (int) shared[g][pairOf[g]];
        int idfn = s.gtBoxes() - idtp, idfp = s.trackerBoxes() - idtp;
        return new Idf1(ratio(2.0 * idtp, 2.0 * idtp + idfp + idfn), ratio(idtp, idtp + idfp), ratio(idtp, idtp + idfn),
                idtp, idfp, idfn);
    }

    /** TrackEval divides by max(1, denominator): an empty video scores 0, not NaN. */
    private static double ratio(double num, double den) { return num / Math.max(1, den); }
}
