package io.argus.pipeline.training;

import io.argus.detector.Detection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Boxes that stand for an object another box already stands for: same class, overlap (IoU) above {@link #IOU}; of
 * such a pair the higher score stays (on a tie, the first). A model's proposals can hold such pairs (NMS per [yolo]
 * layer, or turned off), and a label saved twice teaches the model a second object where there is one.
 */
public final class DuplicateBoxes {
    /**
     * Overlap above which two boxes of one class are one object: above the NMS threshold detectors use (0.45), so
     * two real objects side by side, which NMS already let through, are not taken for one.
     */
    public static final float IOU = 0.7f;

    private DuplicateBoxes() {}

    /** For each box, whether it duplicates a higher-scored box of its class. */
    public static boolean[] mark(List<Detection> boxes) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < boxes.size(); i++) order.add(i);
        order.sort(Comparator.comparingDouble((Integer i) -> -boxes.get(i).confidence()).thenComparingInt(i -> i));
        boolean[] duplicate = new boolean[boxes.size()];
        List<Detection> kept = new ArrayList<>();
        for (int i : order) {
            Detection d = boxes.get(i);
            for (Detection k : kept) {
                if (k.classId() == d.classId() && k.box().iou(d.box()) > IOU) {
                    duplicate[i] = true;
                    break;
                }
            }
            if (!duplicate[i]) kept.add(d);
        }
        return duplicate;
    }

    /** The boxes without their duplicates, in their order. */
    public static List<Detection> without(List<Detection> boxes) {
        boolean[] duplicate = mark(boxes);
        List<Detection> out = new ArrayList<>(boxes.size());
        for (int i = 0; i < boxes.size(); i++) if (!duplicate[i]) out.add(boxes.get(i));
        return out;
    }
}
