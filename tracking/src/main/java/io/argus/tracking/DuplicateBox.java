package io.argus.tracking;

import io.argus.detector.Box;

/**
 * A second box of an object already followed: a high-score detection that no track took, lying over a track of its
 * class that was matched in this frame, starts no track of its own.
 *
 * <p>Why: the detector's NMS (0.45) keeps a second box of one object when the two overlap less than that: a box shifted
 * by a third of the object, or one spanning the object and a neighbour. Such a box started a track (confirmed on its
 * second frame), and from then on the two tracks took turns on the object's single box, each turn an id switch: on
 * seed 20261405 a square passing a circle got a second square box for two frames, and tracks 1 and 5 alternated on
 * the square for 30 frames; elsewhere the second track, lost beside the first, later took the object over. ByteTrack
 * removes a duplicate only when a followed and a lost track nearly coincide (IoU above 0.85), too late for these.
 *
 * <p>The limit, IoU above {@link #SAME_OBJECT_IOU} with the track's box: over the development seeds of the tracking
 * video (docs/tracking.md) 0.15 to 0.25 did equally well and 0.4 let seed 20261405's second square through. The
 * higher end is taken, so that in a real crowd a person close behind another of their class is held back only while
 * the two boxes overlap that much; on the tracking video, objects that no role makes meet overlap by at most a quarter
 * of the smaller box (IoU at most 0.14), so no new object is held back there.
 */
final class DuplicateBox {
    /** A detection overlapping a matched track of its class by more than this is that track's object again. */
    static final double SAME_OBJECT_IOU = 0.25;

    private DuplicateBox() {}

    /** Whether a detection's box is another box of the object whose track (matched in this frame) has trackBox. */
    static boolean isAnotherBoxOf(Box detection, Box trackBox) {
        return detection.iou(trackBox) > SAME_OBJECT_IOU;
    }
}
