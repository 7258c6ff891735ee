package io.argus.tools.tracking;

/**
 * One line of a MOTChallenge file: an object's box in one frame. Ground truth and tracker results share the layout
 * {@code frame,id,left,top,width,height,conf,class,visibility}: frames count from 1, boxes are in video pixels.
 *
 * <p>{@code confidence}: in ground truth 1 = evaluate, 0 = ignore (MOTChallenge's "zero marked"); in results the
 * tracker's score. {@code classId}: the model's class index (0-based, as in its .names file), or {@link #NO_CLASS}
 * when the file gives none (a results file's {@code x} column is -1). {@code visibility}: the visible share of the
 * object, 0..1, 1 when the file gives none.
 */
public record MotRow(int frame, long id, double left, double top, double width, double height, double confidence,
                     int classId, double visibility) {
    public static final int NO_CLASS = -1;

    public MotRow {
        if (frame < 1) throw new IllegalArgumentException("frame: expected 1 or more (frames count from 1), found " + frame);
        if (!(width >= 0 && height >= 0)) {
            throw new IllegalArgumentException("box size: expected width and height >= 0, found " + width + "x" + height);
        }
        if (!(visibility >= 0 && visibility <= 1)) {
            throw new IllegalArgumentException("visibility: expected 0..1, found " + visibility);
        }
    }

    public double right() { return left + width; }

    public double bottom() { return top + height; }

    /** Intersection over union of the two boxes (0 when they do not overlap). */
    public double iou(MotRow o) {
        double iw = Math.min(right(), o.right()) - Math.max(left, o.left);
        double ih = Math.min(bottom(), o.bottom()) - Math.max(top, o.top);
        if (iw <= 0 || ih <= 0) return 0;
        double inter = iw * ih;
        return inter / (width * height + o.width * o.height - inter);
    }

    /** Whether the two may be the same object: same class, or one of them names none. */
    public boolean sameClassAs(MotRow o) {
        return classId == NO_CLASS || o.classId == NO_CLASS || classId == o.classId;
    }
}
