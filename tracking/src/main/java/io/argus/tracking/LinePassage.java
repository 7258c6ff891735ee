package io.argus.tracking;

import io.argus.tracking.Line.Direction;
import io.argus.tracking.Line.Side;

/**
 * Where one object is relative to one line, frame after frame, to count its crossings of the segment.
 *
 * <p>A crossing is a change from strictly one side of the line to strictly the other through the segment, confirmed
 * when the object has been seen on the new side {@link Line#inertia} frames in a row. Before that, a return to the old
 * side cancels it: the detector's box edges jitter by several pixels from frame to frame, so an object walking slowly
 * over a line went back and forth across it (seed 1 of the tracking video counted a triangle in 2, out 2 for a true
 * 1 and 1). Whether the path went through the segment or beside it is decided by the step that first left the old
 * side. Anchors that land exactly on the line decide nothing by themselves: the object keeps the side it came from
 * until it is strictly off the line again; when the path touched the line on the way, the first touch decides
 * whether it went through the segment (ends included) or beside it.
 */
final class LinePassage {
    private enum Touch { NONE, ON_SEGMENT, BESIDE_SEGMENT }

    private Side side;                 // the confirmed side, strictly off the line; null while unknown
    private Touch touch = Touch.NONE;  // where the path first touched the line since it left `side`
    private int framesAcross;          // frames seen in a row on the other side of `side`
    private boolean throughSegment;    // whether the step that left `side` went through the segment

    /**
     * The object moved from {@code previous} (its anchor in the last frame it was seen in; null when unknown) to
     * {@code current}; both in the line's units. Returns the direction of a crossing confirmed now, or null.
     */
    Direction step(Line line, Point previous, Point current) {
        if (side == null && previous != null && line.sideOf(previous) != Side.ON) side = line.sideOf(previous);
        Side now = line.sideOf(current);
        if (now == Side.ON) {
            if (side != null && framesAcross == 0 && touch == Touch.NONE) {
                touch = line.segmentContains(current) ? Touch.ON_SEGMENT : Touch.BESIDE_SEGMENT;
            }
            return null;
        }
        if (side == null || now == side) {   // first sight, or back on the confirmed side: nothing crossed
            side = now;
            touch = Touch.NONE;
            framesAcross = 0;
            return null;
        }
        if (framesAcross == 0) {
            throughSegment = switch (touch) {
                case NONE -> previous != null && line.crossedBy(previous, current);
                case ON_SEGMENT -> true;
                case BESIDE_SEGMENT -> false;
            };
        }
        framesAcross++;
        if (framesAcross < line.inertia()) return null;
        Direction crossed = throughSegment ? Line.direction(side) : null;
        side = now;
        touch = Touch.NONE;
        framesAcross = 0;
        return crossed;
    }
}
