package io.argus.pipeline.tracking;

import io.argus.detector.Box;

/**
 * One box over two objects of a class that meet: the track matched to it keeps it, but goes on as predicted instead
 * of following it.
 *
 * <p>Why: where two objects of one class cross (the tracking video's X, one passing wholly in front of the other), the
 * detector sees a single box for up to 20 frames, wider than either object and drifting from one to the other. The
 * track matched to it, the front object's, followed that box and took on its velocity; when the two parted, its
 * prediction lay nearer the other object, and the ids swapped (seed 20261203: two circles, IDF1 0.82). The other
 * track, unmatched meanwhile, is lost and moves on as predicted (or on its {@link OccludedPath}). If the matched one
 * does the same, both come out of the meeting where their objects do, and each finds its own.
 *
 * <p>A box is taken as shared when the matched track's predicted box overlaps the predicted box of a track of its
 * class that no detection took in this frame by IoU above {@link #MEETING_IOU}, and the detection covers that other
 * track's box too (IoU above the same). The second condition keeps the rule to boxes that may hold both: a track that
 * only passes near a lost one keeps following its detections. Over the development seeds 0.2 to 0.3 did equally well;
 * 0.1 held tracks still next to lost ones too often, 0.4 and above missed seed 20261203's meeting.
 */
final class SharedBox {
    /** Two tracks' predicted boxes overlapping more than this meet; a box over both of them covers each this much. */
    static final double MEETING_IOU = 0.3;

    private SharedBox() {}

    /**
     * Whether detection, matched to the track predicted at predicted, also holds the object of another track of its
     * class, unmatched in this frame and predicted at otherPredicted.
     */
    static boolean isShared(Box predicted, Box detection, Box otherPredicted) {
        return predicted.iou(otherPredicted) > MEETING_IOU && detection.iou(otherPredicted) > MEETING_IOU;
    }
}
