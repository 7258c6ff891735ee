package io.argus.tracking;

import io.argus.detector.Box;

/**
 * One box over two objects of a class that meet: the track matched to it keeps it, but goes on as predicted instead
 * of following it.
 *
 * <p>Why: where two objects of one class cross (the tracking video's X, one passing wholly in front of the other), the
 * detector sees a single box for up to 20 frames, wider than either object and drifting from one to the other. The
 * track matched to it, the front object's, followed that box and took on its velocity; when the two parted, its
 * prediction lay nearer the other object, and the ids swapped (seed 20261203: two circles, IDF1 0.82). The other
 * track, unmatched meanwhile, is lost and moves on as predicted (or on its {@link OccludedPath}). When the matched one
 * does the same, both come out of the meeting where their objects do, and each finds its own.
 *
 * <p>A box is taken as shared when it overlaps, by IoU above {@link #COVERS_IOU}, the predicted box of another track of
 * its class that no detection took in this frame: the object that track follows may be in it. Over the development
 * seeds of the tracking video (docs/tracking.md) 0.2 to 0.4 did equally well; 0.1 held tracks still beside lost ones
 * too often, 0.5 missed seed 20261203's meeting. A first version also asked the two tracks' predicted boxes to overlap
 * (IoU above 0.3): that came too late where the box had already grown over both, and the track coasted on at the
 * velocity the growing box had given it (ByteTrackerTest's crossing). Coasting ends when the other track is found
 * again or removed (trackBuffer, or twice that when hidden): on the 30 development seeds the longest was 22 frames.
 */
final class SharedBox {
    /** A detection overlapping an unmatched track's predicted box by more than this may hold its object. */
    static final double COVERS_IOU = 0.3;

    private SharedBox() {}

    /** Whether a detection may also hold the object of another track (of its class, unmatched) predicted at other. */
    static boolean isShared(Box detection, Box other) {
        return detection.iou(other) > COVERS_IOU;
    }
}
