package io.argus.pipeline.training;

import java.util.Locale;
import java.util.Map;

/**
 * Whether a fine-tuned candidate replaces the serving version: only when its mAP@0.5 on the held-out frames is at
 * least the serving version's on the same frames (less {@code tolerance}, 0 by default), and only when the held-out
 * frames are evidence: every class seen in the labels has at least {@code minPerClass} held-out objects. A class's AP
 * on two objects is 0, 0.5 or 1: a candidate that forgot a class can tie the serving version there by luck, so
 * "not worse" on so few says nothing (an mAP of 1.000 -> 1.000 on two frames swapped any candidate in).
 */
public record SwapDecision(boolean accept, String reason) {
    /** Without a per-class requirement (any held-out object is evidence). */
    public static SwapDecision decide(double mapBefore, double mapAfter, double tolerance, int heldOutObjects) {
        return decide(mapBefore, mapAfter, tolerance, heldOutObjects, Map.of(), 0);
    }

    /**
     * @param heldOutPerClass held-out objects of each class seen in the labels (train or held out; 0 when a class
     *                        appears only in training frames)
     * @param minPerClass     held-out objects each of those classes needs
     */
    public static SwapDecision decide(double mapBefore, double mapAfter, double tolerance, int heldOutObjects,
                                      Map<String, Integer> heldOutPerClass, int minPerClass) {
        if (heldOutObjects == 0) {
            return new SwapDecision(false, "the held-out frames have no objects: nothing to compare on");
        }
        String waiting = waiting(heldOutPerClass, minPerClass);
        if (waiting != null) return new SwapDecision(false, waiting);
        if (Double.isNaN(mapAfter)) return new SwapDecision(false, "the candidate's mAP is not a number");
        String cmp = String.format(Locale.ROOT, "held-out mAP@0.5 %.4f -> %.4f", mapBefore, mapAfter);
        if (mapAfter >= mapBefore - tolerance) {
            return new SwapDecision(true, cmp + (mapAfter >= mapBefore ? ": not worse" : ": within the tolerance "
                    + String.format(Locale.ROOT, "%.4f", tolerance)));
        }
        return new SwapDecision(false, cmp + ": worse, the serving version stays");
    }

    /**
     * Why the held-out frames are not yet evidence, naming the class with the fewest objects (ties: by name), e.g.
     * "waiting: 2 held-out objects of class cross, need 10"; null when every class has enough.
     */
    public static String waiting(Map<String, Integer> heldOutPerClass, int minPerClass) {
        Map.Entry<String, Integer> fewest = null;
        int short_ = 0;
        for (Map.Entry<String, Integer> e : heldOutPerClass.entrySet()) {
            if (e.getValue() >= minPerClass) continue;
            short_++;
            if (fewest == null || e.getValue() < fewest.getValue()
                    || e.getValue().equals(fewest.getValue()) && e.getKey().compareTo(fewest.getKey()) < 0) {
                fewest = e;
            }
        }
        if (fewest == null) return null;
        return "waiting: " + fewest.getValue() + " held-out object" + (fewest.getValue() == 1 ? "" : "s") + " of class "
                + fewest.getKey() + ", need " + minPerClass
                + (short_ > 1 ? " (" + (short_ - 1) + " more class" + (short_ > 2 ? "es" : "") + " short)" : "");
    }
}
