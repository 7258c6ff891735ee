package io.argus.tracking;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A zone of a camera: a simple polygon in source pixels (or fractions of the frame with {@code normalized}), the
 * classes it watches, and how patient it is.
 *
 * <p>A point exactly on the boundary (an edge or a corner) is inside: the rule is the same on every edge, unlike the
 * half-open convention of plain ray casting, which puts the left and top edges in and the right and bottom ones out.
 *
 * @param classes       class names that count here; empty: every class
 * @param inertia       consecutive frames on the other side of the boundary before an object enters or leaves
 * @param loiterSeconds time inside after which an object is loitering; 0: never
 */
public record Zone(String id, List<Point> polygon, boolean normalized, List<String> classes, int inertia,
                   double loiterSeconds) {
    public static final int DEFAULT_INERTIA = 3;
    /**
     * The most corners a zone's polygon may have: plenty for any outline drawn on a picture, and it bounds the work of
     * checking the polygon and of placing every tracked object in it on every frame.
     */
    public static final int MAX_POINTS = 1000;

    public Zone {
        SceneRules.checkId(id);
        polygon = List.copyOf(polygon);
        classes = List.copyOf(classes);
        for (Point p : polygon) {
            String problem = coordinateProblem(p, normalized);
            if (problem != null) throw new IllegalArgumentException("zone " + id + ": " + problem);
        }
        String problem = polygonProblem(polygon);
        if (problem != null) throw new IllegalArgumentException("zone " + id + ": " + problem);
        if (inertia < 1) throw new IllegalArgumentException("zone " + id + ": inertia must be >= 1, found " + inertia);
        if (!(loiterSeconds >= 0) || Double.isInfinite(loiterSeconds)) {
            throw new IllegalArgumentException("zone " + id + ": loiterSeconds must be >= 0, found " + loiterSeconds);
        }
    }

    /** Whether objects of this class count in this zone. */
    public boolean accepts(String className) { return classes.isEmpty() || classes.contains(className); }

    /** Whether p (in this zone's units) is inside or on the boundary. */
    public boolean contains(Point p) {
        int n = polygon.size();
        for (int i = 0; i < n; i++) {
            if (Point.onSegment(polygon.get(i), polygon.get((i + 1) % n), p)) return true;
        }
        // Even-odd ray casting towards +x; the boundary is settled above, so its half-open edge rule does not show.
        boolean inside = false;
        for (int i = 0, j = n - 1; i < n; j = i++) {
            Point a = polygon.get(i), b = polygon.get(j);
            if ((a.y() > p.y()) != (b.y() > p.y())) {
                double crossingX = a.x() + (p.y() - a.y()) * (b.x() - a.x()) / (b.y() - a.y());
                if (p.x() < crossingX) inside = !inside;
            }
        }
        return inside;
    }

    /** How far p lies outside the zone (0 when inside or on the boundary), in this zone's units. */
    public double distanceOutside(Point p) {
        if (contains(p)) return 0;
        double nearest = Double.POSITIVE_INFINITY;
        int n = polygon.size();
        for (int i = 0; i < n; i++) nearest = Math.min(nearest, Point.distanceToSegment(p, polygon.get(i), polygon.get((i + 1) % n)));
        return nearest;
    }

    /** This zone in pixels of a frame of {@code width} x {@code height} (itself when already in pixels). */
    public Zone inPixels(int width, int height) {
        if (!normalized) return this;
        List<Point> scaled = new ArrayList<>(polygon.size());
        for (Point p : polygon) scaled.add(p.scaled(width, height));
        return new Zone(id, scaled, false, classes, inertia, loiterSeconds);
    }

    /** What is wrong with one corner ("expected ..., found ..."), or null. */
    public static String coordinateProblem(Point p, boolean normalized) {
        Objects.requireNonNull(p, "point");
        if (!Double.isFinite(p.x()) || !Double.isFinite(p.y())) return "expected finite coordinates, found " + p;
        if (normalized && (p.x() < 0 || p.x() > 1 || p.y() < 0 || p.y() > 1)) {
            return "expected coordinates in 0..1 (normalized: true), found " + p;
        }
        return null;
    }

    /**
     * What is wrong with a polygon as a whole ("expected ..., found ..."), or null: fewer than 3 corners or more than
     * {@link #MAX_POINTS}, a corner repeated next to itself, no area (all corners on one line), or edges that cross,
     * touch or fold back (a zone must be a simple polygon, so inside and outside mean one thing). O(n log n): the
     * crossing edges are found by {@link SimplePolygon}.
     */
    public static String polygonProblem(List<Point> polygon) {
        int n = polygon.size();
        if (n < 3) return "expected at least 3 points, found " + n;
        if (n > MAX_POINTS) return "expected at most " + MAX_POINTS + " points, found " + n;
        for (int i = 0; i < n; i++) {
            if (polygon.get(i).equals(polygon.get((i + 1) % n))) {
                return i + 1 < n ? "expected no point twice in a row, found " + polygon.get(i) + " at " + i + " and " + (i + 1)
                        : "expected the last point to differ from the first (the polygon closes itself), found " + polygon.get(i) + " at both";
            }
        }
        if (area(polygon) == 0) return "expected a polygon with an area, found all points on one line (area 0)";
        for (int i = 0; i < n; i++) {
            Point a = polygon.get(i), b = polygon.get((i + 1) % n), c = polygon.get((i + 2) % n);
            boolean foldsBack = Point.cross(a, b, c) == 0
                    && (b.x() - a.x()) * (c.x() - b.x()) + (b.y() - a.y()) * (c.y() - b.y()) < 0;
            if (foldsBack) return "expected edges that do not fold back, found the edges at point " + ((i + 1) % n) + " " + b + " overlapping";
        }
        SimplePolygon.Meeting m = SimplePolygon.meetingEdges(polygon);
        if (m != null) {
            return "expected edges that do not cross, found edge " + m.first() + "-" + ((m.first() + 1) % n) + " meeting edge "
                    + m.second() + "-" + ((m.second() + 1) % n);
        }
        return null;
    }

    /** The absolute area (shoelace formula). */
    static double area(List<Point> polygon) {
        double twice = 0;
        int n = polygon.size();
        for (int i = 0; i < n; i++) {
            Point a = polygon.get(i), b = polygon.get((i + 1) % n);
            twice += a.x() * b.y() - b.x() * a.y();
        }
        return Math.abs(twice) / 2;
    }
}
