package io.argus.tracking;

/**
 * A point of the image plane, x to the right and y downwards (image coordinates): source pixels, or fractions of the
 * frame's width and height for rules written {@code normalized: true}.
 */
public record Point(double x, double y) {
    /** This point in pixels of a frame of {@code width} x {@code height}, when it is given as fractions of the frame. */
    public Point scaled(double width, double height) { return new Point(x * width, y * height); }

    /** {@code [x,y]}, as in JSON; whole numbers without a fraction ({@link #plain}). */
    @Override
    public String toString() { return "[" + plain(x) + "," + plain(y) + "]"; }

    /** A coordinate as it was most likely typed: a whole number without a fraction, else the double. */
    public static Number plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? (Number) (long) v : (Number) v;
    }

    /** The cross product (b - a) x (c - a): positive when c lies right of a->b as seen on the image (y down), 0 on it. */
    static double cross(Point a, Point b, Point c) {
        return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    }

    /** Whether c, known to be on the infinite line through a and b, lies between them (ends included). */
    static boolean withinBounds(Point a, Point b, Point c) {
        return Math.min(a.x, b.x) <= c.x && c.x <= Math.max(a.x, b.x)
                && Math.min(a.y, b.y) <= c.y && c.y <= Math.max(a.y, b.y);
    }

    /** Whether c lies on the closed segment a-b. */
    static boolean onSegment(Point a, Point b, Point c) {
        return cross(a, b, c) == 0 && withinBounds(a, b, c);
    }

    /** Whether the closed segments a-b and c-d share a point (crossing, touching or overlapping). */
    static boolean segmentsMeet(Point a, Point b, Point c, Point d) {
        double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
        if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
        return (d1 == 0 && withinBounds(c, d, a)) || (d2 == 0 && withinBounds(c, d, b))
                || (d3 == 0 && withinBounds(a, b, c)) || (d4 == 0 && withinBounds(a, b, d));
    }

    /** The distance from p to the closed segment a-b. */
    static double distanceToSegment(Point p, Point a, Point b) {
        double dx = b.x - a.x, dy = b.y - a.y;
        double lengthSquared = dx * dx + dy * dy;
        double t = lengthSquared == 0 ? 0 : ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared;
        t = Math.max(0, Math.min(1, t));
        return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
    }
}
