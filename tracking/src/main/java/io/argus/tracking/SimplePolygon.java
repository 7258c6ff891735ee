package io.argus.tracking;

import java.util.List;
import org.locationtech.jts.geom.Coordinate;
import org.locationtech.jts.noding.BasicSegmentString;
import org.locationtech.jts.noding.MCIndexNoder;
import org.locationtech.jts.noding.SegmentIntersector;
import org.locationtech.jts.noding.SegmentString;

/**
 * Finds two edges of a polygon that meet although they are not neighbours (they cross, touch or overlap), without
 * trying every pair: comparing each edge with every other one took 66 s for 80,000 points. JTS's monotone-chain index
 * ({@link MCIndexNoder}) cuts the ring into runs of edges that go one way (such a run cannot meet itself) and hands
 * over only the pairs of edges whose bounding boxes overlap, O(n log n) for a zone's outline; each pair is then decided
 * exactly as before, by {@link Point#segmentsMeet}, so what counts as crossing is unchanged. Edges are numbered by
 * their first corner: edge i runs from corner i to corner i + 1 (the last one back to corner 0).
 */
final class SimplePolygon {
    private SimplePolygon() {}

    /** Two edges that meet though they are not neighbours: {@code first < second}. */
    record Meeting(int first, int second) {}

    /**
     * The first pair found of edges that meet without being neighbours, or null when there is none. The polygon has at
     * least 3 corners and none repeated next to itself (checked before: a zero-length edge has no direction).
     */
    static Meeting meetingEdges(List<Point> polygon) {
        int n = polygon.size();
        Coordinate[] ring = new Coordinate[n + 1];
        for (int i = 0; i < n; i++) ring[i] = new Coordinate(polygon.get(i).x(), polygon.get(i).y());
        ring[n] = ring[0];
        Finder finder = new Finder(polygon);
        MCIndexNoder noder = new MCIndexNoder(finder);
        noder.computeNodes(List.of(new BasicSegmentString(ring, null)));
        return finder.found;
    }

    /** Decides each candidate pair the index proposes; stops at the first pair that meets. */
    private static final class Finder implements SegmentIntersector {
        private final List<Point> polygon;
        private final int n;
        Meeting found;

        Finder(List<Point> polygon) {
            this.polygon = polygon;
            this.n = polygon.size();
        }

        @Override
        public void processIntersections(SegmentString s0, int edge0, SegmentString s1, int edge1) {
            int i = Math.min(edge0, edge1), j = Math.max(edge0, edge1);
            if (found != null || j - i < 2 || (i == 0 && j == n - 1)) return;   // neighbours share their corner
            if (Point.segmentsMeet(polygon.get(i), polygon.get(i + 1), polygon.get(j), polygon.get((j + 1) % n))) {
                found = new Meeting(i, j);
            }
        }

        @Override
        public boolean isDone() { return found != null; }
    }
}
