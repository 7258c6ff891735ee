package io.argus.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.tracking.Line.Direction;
import io.argus.tracking.Line.Side;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Sides, the segment rather than the infinite line, ends, direction. */
@Budget(seconds = 5)
class LineTest {
    // drawn left to right across the picture at y = 100, from x = 100 to x = 200
    final Line gate = new Line("gate", new Point(100, 100), new Point(200, 100), false, List.of());

    @Test
    void sidesAreSeenOnTheImageWithYDownwards() {
        assertEquals(Side.LEFT, gate.sideOf(new Point(150, 50)), "above a left-to-right line is its left hand");
        assertEquals(Side.RIGHT, gate.sideOf(new Point(150, 150)));
        assertEquals(Side.ON, gate.sideOf(new Point(150, 100)));
        assertEquals(Side.ON, gate.sideOf(new Point(900, 100)), "on the infinite line, beyond the segment");
        Line reversed = new Line("r", gate.to(), gate.from(), false, List.of());
        assertEquals(Side.RIGHT, reversed.sideOf(new Point(150, 50)));
    }

    @Test
    void leftToRightIsInAndTheOtherWayOut() {
        assertEquals(Direction.IN, Line.direction(Side.LEFT));
        assertEquals(Direction.OUT, Line.direction(Side.RIGHT));
    }

    @Test
    void onlyPathsThroughTheSegmentCrossIt() {
        assertTrue(gate.crossedBy(new Point(150, 50), new Point(150, 150)));
        assertTrue(gate.crossedBy(new Point(150, 150), new Point(150, 50)));
        assertTrue(gate.crossedBy(new Point(0, 0), new Point(300, 200)), "diagonal through the middle (150, 100)");
        assertFalse(gate.crossedBy(new Point(300, 50), new Point(300, 150)), "through the extension beyond to");
        assertFalse(gate.crossedBy(new Point(50, 50), new Point(50, 150)), "through the extension before from");
        assertFalse(gate.crossedBy(new Point(150, 50), new Point(150, 90)), "stops short");
        assertFalse(gate.crossedBy(new Point(150, 50), new Point(150, 100)), "ends on the line: not strictly across");
    }

    @Test
    void theEndsBelongToTheSegment() {
        assertTrue(gate.crossedBy(new Point(200, 50), new Point(200, 150)), "through the end point to");
        assertTrue(gate.crossedBy(new Point(90, 90), new Point(110, 110)), "through the end point from, diagonally");
        assertFalse(gate.crossedBy(new Point(200.5, 50), new Point(200.5, 150)), "half a pixel beyond the end");
        assertTrue(gate.segmentContains(new Point(200, 100)));
        assertFalse(gate.segmentContains(new Point(201, 100)));
    }

    @Test
    void normalisedLineScalesWithTheFrame() {
        Line middle = new Line("m", new Point(0, 0.5), new Point(0.5, 0.5), true, List.of());
        Line px = middle.inPixels(640, 480);
        assertEquals(new Point(320, 240), px.to());
        assertTrue(px.crossedBy(new Point(100, 200), new Point(100, 300)));
        assertFalse(px.crossedBy(new Point(400, 200), new Point(400, 300)), "right half of the frame: beyond the end");
    }

    @Test
    void fromAndToMustDiffer() {
        assertThrows(IllegalArgumentException.class, () -> new Line("x", new Point(1, 1), new Point(1, 1), false, List.of()));
    }
}
