package io.argus.tools.tracking;

import java.util.List;

/**
 * All the tracking metrics of one video: CLEAR MOT, identity (IDF1) and HOTA, computed on the same
 * {@link MotSequence} (ground-truth boxes less visible than {@code minVisibility} left out, with the results on them).
 */
public record TrackingScores(MotSequence sequence, ClearMot clear, Idf1 identity, Hota hota) {
    public static TrackingScores of(List<MotRow> gt, List<MotRow> results, double minVisibility) {
        MotSequence s = MotSequence.of(gt, results, minVisibility);
        return new TrackingScores(s, ClearMot.of(s), Idf1.of(s), Hota.of(s));
    }
}
