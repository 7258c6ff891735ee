package io.argus.tracking;

import java.util.List;

/**
 * A counting line of a camera: the directed segment from {@code from} to {@code to}, in source pixels (or fractions of
 * the frame with {@code normalized}), and the classes it counts.
 *
 * <p>Direction: stand at {@code from} looking at {@code to} on the image as displayed (y downwards); an object that
 * crosses from the left hand to the right hand goes {@link Direction#IN}, the other way {@link Direction#OUT}. For a
 * line drawn left to right across the picture, walking down the picture is "in".
 *
 * <p>Only the segment counts, not the infinite line through it (supervision #518 counted crossings of the extension).
 * Its two ends belong to it: a path through an end point crosses. A crossing counts once the object has been seen
 * {@code inertia} frames in a row on the new side ({@link LinePassage}): a box whose edge jitters back and forth
 * across the line as its object walks over it slowly is one crossing, not three.
 */
public record Line(String id, Point from, Point to, boolean normalized, List<String> classes, int inertia) {
    /** Frames on the new side before a crossing counts, unless a line says otherwise (as {@link Zone#DEFAULT_INERTIA}). */
    public static final int DEFAULT_INERTIA = Zone.DEFAULT_INERTIA;

    /** A line with the default inertia. */
    public Line(String id, Point from, Point to, boolean normalized, List<String> classes) {
        this(id, from, to, normalized, classes, DEFAULT_INERTIA);
    }

    /** Which way an object crossed. */
    public enum Direction {
        IN, OUT;

        /** {@code "in"} or {@code "out"}, as in events, counts and JSON. */
        public String jsonName() { return this == IN ? "in" : "out"; }
    }

    /** Where a point lies relative to the infinite line through the segment, as seen on the image. */
    public enum Side { LEFT, RIGHT, ON }

    public Line {
        SceneRules.checkId(id);
        classes = List.copyOf(classes);
        for (Point p : List.of(from, to)) {
            String problem = Zone.coordinateProblem(p, normalized);
            if (problem != null) throw new IllegalArgumentException("line " + id + ": " + problem);
        }
        if (from.equals(to)) throw new IllegalArgumentException("line " + id + ": from and to are the same point " + from);
        if (inertia < 1) throw new IllegalArgumentException("line " + id + ": inertia must be >= 1, found " + inertia);
    }

    /** Whether crossings of objects of this class count on this line. */
    public boolean accepts(String className) { return classes.isEmpty() || classes.contains(className); }

    public Side sideOf(Point p) {
        double cross = Point.cross(from, to, p);   // positive: right of from->to on the image
        return cross > 0 ? Side.RIGHT : cross < 0 ? Side.LEFT : Side.ON;
    }

    /** Whether p lies on the segment (ends included). */
    public boolean segmentContains(Point p) { return Point.onSegment(from, to, p); }

    /**
     * Whether the straight path from p to q, strictly on opposite sides of the line, passes through the segment
     * rather than the line's extension beyond an end.
     */
    public boolean crossedBy(Point p, Point q) {
        Side sp = sideOf(p), sq = sideOf(q);
        if (sp == Side.ON || sq == Side.ON || sp == sq) return false;
        // p and q straddle the line; the path meets the segment when from and to are not both on one side of the path
        double f = Point.cross(p, q, from), t = Point.cross(p, q, to);
        return !((f > 0 && t > 0) || (f < 0 && t < 0));
    }

    /** The direction of a crossing that leaves the side {@code from}: left to right is in. */
    public static Direction direction(Side from) { return from == Side.LEFT ? Direction.IN : Direction.OUT; }

    /** This line in pixels of a frame of {@code width} x {@code height} (itself when already in pixels). */
    public Line inPixels(int width, int height) {
        return normalized ? new Line(id, from.scaled(width, height), to.scaled(width, height), false, classes, inertia) : this;
    }

    /** Whether the two are the same segment of the image (classes aside). */
    public boolean sameSegment(Line other) {
        return from.equals(other.from) && to.equals(other.to) && normalized == other.normalized;
    }
}
