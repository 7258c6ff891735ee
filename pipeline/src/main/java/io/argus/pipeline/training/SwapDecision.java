package io.argus.pipeline.training;

import java.util.Locale;

/**
 * Whether a fine-tuned candidate replaces the serving version: only when its mAP@0.5 on the held-out frames is at
 * least the serving version's on the same frames (less {@code tolerance}, 0 by default), and only when the held-out
 * frames have objects at all (with none, mAP says nothing).
 */
public record SwapDecision(boolean accept, String reason) {
    public static SwapDecision decide(double mapBefore, double mapAfter, double tolerance, int heldOutObjects) {
        if (heldOutObjects == 0) {
            return new SwapDecision(false, "the held-out frames have no objects: nothing to compare on");
        }
        if (Double.isNaN(mapAfter)) return new SwapDecision(false, "the candidate's mAP is not a number");
        String cmp = String.format(Locale.ROOT, "held-out mAP@0.5 %.4f -> %.4f", mapBefore, mapAfter);
        if (mapAfter >= mapBefore - tolerance) {
            return new SwapDecision(true, cmp + (mapAfter >= mapBefore ? ": not worse" : ": within the tolerance "
                    + String.format(Locale.ROOT, "%.4f", tolerance)));
        }
        return new SwapDecision(false, cmp + ": worse, the serving version stays");
    }
}
