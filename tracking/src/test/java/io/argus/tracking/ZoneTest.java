package io.argus.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Point in polygon: convex, concave, the boundary rule, normalised coordinates, distance outside. */
@Budget(seconds = 5)
class ZoneTest {
    static Zone zone(boolean normalized, double... xy) {
        List<Point> points = new java.util.ArrayList<>();
        for (int i = 0; i < xy.length; i += 2) points.add(new Point(xy[i], xy[i + 1]));
        return new Zone("z", points, normalized, List.of(), 1, 0);
    }

    @Test
    void convexPolygonHoldsItsInsideOnly() {
        Zone square = zone(false, 100, 400, 600, 400, 600, 700, 100, 700);
        assertTrue(square.contains(new Point(350, 550)));
        assertTrue(square.contains(new Point(101, 699)));
        assertFalse(square.contains(new Point(99, 550)));
        assertFalse(square.contains(new Point(350, 701)));
        assertFalse(square.contains(new Point(700, 550)));
    }

    @Test
    void concavePolygonLeavesItsNotchOutside() {
        // a U: two arms 0..100 and 200..300 wide, joined by a base from y 200 to 300; the notch is x 100..200, y 0..200
        Zone u = zone(false, 0, 0, 100, 0, 100, 200, 200, 200, 200, 0, 300, 0, 300, 300, 0, 300);
        assertTrue(u.contains(new Point(50, 100)), "left arm");
        assertTrue(u.contains(new Point(250, 100)), "right arm");
        assertTrue(u.contains(new Point(150, 250)), "base");
        assertFalse(u.contains(new Point(150, 100)), "the notch");
        assertFalse(u.contains(new Point(150, 199.9)), "just above the notch's floor");
    }

    @Test
    void theBoundaryIsInsideOnEveryEdgeAndCorner() {
        Zone square = zone(false, 100, 400, 600, 400, 600, 700, 100, 700);
        // plain ray casting puts two of these edges in and two out; the rule here is the same everywhere
        assertTrue(square.contains(new Point(350, 400)), "top edge");
        assertTrue(square.contains(new Point(600, 550)), "right edge");
        assertTrue(square.contains(new Point(350, 700)), "bottom edge");
        assertTrue(square.contains(new Point(100, 550)), "left edge");
        for (Point corner : square.polygon()) assertTrue(square.contains(corner), "corner " + corner);
        Zone triangle = zone(false, 0, 0, 100, 0, 0, 100);
        assertTrue(triangle.contains(new Point(50, 50)), "on the slanted edge");
        assertFalse(triangle.contains(new Point(51, 50)), "just beyond it");
    }

    @Test
    void normalisedZoneScalesWithTheFrame() {
        Zone middle = zone(true, 0.25, 0.25, 0.75, 0.25, 0.75, 0.75, 0.25, 0.75);
        Zone small = middle.inPixels(640, 480);
        assertEquals(new Point(160, 120), small.polygon().get(0));
        assertTrue(small.contains(new Point(320, 240)));
        assertFalse(small.contains(new Point(100, 100)));
        assertTrue(small.contains(new Point(480, 360)), "the far corner, in pixels");
        Zone large = middle.inPixels(1920, 1080);
        assertTrue(large.contains(new Point(1000, 500)));
        assertFalse(large.contains(new Point(1500, 500)));
        assertFalse(small.normalized());
        assertTrue(middle.contains(new Point(0.5, 0.5)), "the zone itself is in fractions of the frame");
    }

    @Test
    void distanceOutsideIsZeroInsideAndTheNearestEdgeOutside() {
        Zone square = zone(false, 100, 400, 600, 400, 600, 700, 100, 700);
        assertEquals(0, square.distanceOutside(new Point(300, 500)));
        assertEquals(0, square.distanceOutside(new Point(600, 500)));
        assertEquals(10, square.distanceOutside(new Point(610, 500)), 1e-9);
        assertEquals(5, square.distanceOutside(new Point(603, 704)), 1e-9, "beyond a corner: to the corner");
    }

    @Test
    void classFilterAcceptsListedClassesOrAllWhenEmpty() {
        Zone all = zone(false, 0, 0, 10, 0, 10, 10);
        Zone people = new Zone("p", all.polygon(), false, List.of("person"), 3, 0);
        assertTrue(all.accepts("car"));
        assertTrue(people.accepts("person"));
        assertFalse(people.accepts("car"));
    }

    @Test
    void constructorRejectsWhatTheConfigWouldReject() {
        assertThrows(IllegalArgumentException.class, () -> zone(false, 0, 0, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> zone(false, 0, 0, 10, 10, 20, 20), "no area");
        assertThrows(IllegalArgumentException.class, () -> zone(false, 0, 0, 40, 0, 0, 10, 10, 30), "edges that cross");
        assertThrows(IllegalArgumentException.class, () -> zone(true, 0, 0, 1.5, 0, 1, 1), "normalised beyond 1");
        assertThrows(IllegalArgumentException.class, () -> zone(false, 0, 0, Double.NaN, 0, 1, 1));
    }
}
