package io.argus.tools.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import io.argus.tracking.Line;
import io.argus.tracking.Point;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Counting line crossings from MOTChallenge rows (through the pipeline's SceneWatch): the anchor is the bottom centre
 * of each box; the segment counts, not the line; left to right is in; an anchor on the line decides nothing alone.
 */
@Budget(seconds = 5)
class LineCountsTest {
    private static final List<String> CLASSES = List.of("circle", "square", "triangle", "star", "cross");
    /** From (0, 100) to (100, 100): pointing right on the screen, so its left is up and moving down is "in". */
    private final Line line = line(0, 100, 100, 100);

    /**
     * A line that counts on the first frame on the new side (inertia 1): these rows step over it in single frames.
     * The default inertia (3 frames) is SceneWatchTest's.
     */
    private static Line line(double x0, double y0, double x1, double y1) {
        return new Line("gate", new Point(x0, y0), new Point(x1, y1), false, List.of(), 1);
    }

    /** A track whose anchor (the bottom centre of its 10x10 box) goes down across the segment, then back up. */
    @Test
    void downIsInAndUpIsOut() {
        List<MotRow> rows = new Rows()
                .box(1, 1, 45, 80).box(2, 1, 45, 85).box(3, 1, 45, 95)  // bottoms 90, 95, 105: in
                .box(4, 1, 45, 88)                                       // bottom 98: out
                .list();
        LineCounts c = LineCounts.of(line, rows, CLASSES);
        assertEquals(1, c.in("circle"));
        assertEquals(1, c.out("circle"));
        // the same line drawn the other way round swaps in and out
        LineCounts reversed = LineCounts.of(line(100, 100, 0, 100), rows.subList(0, 3), CLASSES);
        assertEquals(0, reversed.in("circle"));
        assertEquals(1, reversed.out("circle"));
    }

    @Test
    void passingBesideTheSegmentCountsNothing() {
        List<MotRow> rows = new Rows().box(1, 1, 115, 80).box(2, 1, 115, 95).list(); // anchor x 120 > 100
        assertEquals(0, LineCounts.of(line, rows, CLASSES).totalIn() + LineCounts.of(line, rows, CLASSES).totalOut());
    }

    /** Above, on the line, below: one crossing; above, on, above: none; frames between sightings change nothing. */
    @Test
    void anAnchorOnTheLineDecidesNothingByItself() {
        LineCounts through = LineCounts.of(line, new Rows().box(1, 1, 45, 85).box(2, 1, 45, 90).box(7, 1, 45, 95)
                .list(), CLASSES);
        assertEquals(1, through.totalIn());
        LineCounts back = LineCounts.of(line, new Rows().box(1, 1, 45, 85).box(2, 1, 45, 90).box(3, 1, 45, 85).list(),
                CLASSES);
        assertEquals(0, back.totalIn() + back.totalOut());
    }

    @Test
    void countsAreByTheClassOfTheTrack() {
        List<MotRow> rows = new Rows()
                .box(1, 1, 10, 80, 10, 10, 2, 1).box(2, 1, 10, 95, 10, 10, 2, 1)
                .box(1, 2, 60, 95, 10, 10, 4, 1).box(2, 2, 60, 80, 10, 10, 4, 1)
                .list();
        LineCounts c = LineCounts.of(line, rows, CLASSES);
        assertEquals(1, c.in("triangle"));
        assertEquals(1, c.out("cross"));
        assertEquals(0, c.in("cross"));
    }
}
