package io.argus.tracking;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A camera's rules hold each id once across its zones and lines (counts are published per id); reading them from JSON
 * and its key-path errors are the pipeline's (events/SceneRulesJsonTest). Budget: well under a second.
 */
@Budget(seconds = 5)
class SceneRulesTest {
    private static final Zone PORCH = new Zone("porch", List.of(new Point(0, 0), new Point(10, 0), new Point(10, 10)),
            false, List.of(), 1, 0);
    private static final Line GATE = new Line("gate", new Point(0, 5), new Point(10, 5), false, List.of());

    @Test
    void anIdUsedByAZoneAndALineIsRefused() {
        SceneRules rules = new SceneRules(List.of(PORCH), List.of(GATE), Anchor.BOTTOM_CENTER);
        Line clash = new Line("porch", new Point(0, 0), new Point(1, 1), false, List.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rules.withLines(List.of(GATE, clash)));
        assertTrue(e.getMessage().contains("found \"porch\" twice"), e.getMessage());
    }

    @Test
    void theRepeatedIdIsFoundByItsTwoPositionsZonesFirst() {
        assertNull(SceneRules.repeatedId(List.of(PORCH), List.of(GATE)));
        Line porchLine = new Line("porch", new Point(0, 0), new Point(1, 1), false, List.of());
        assertArrayEquals(new int[] {0, 2}, SceneRules.repeatedId(List.of(PORCH), List.of(GATE, porchLine)));
        assertArrayEquals(new int[] {0, 1}, SceneRules.repeatedId(List.of(), List.of(GATE, GATE)));
        assertEquals(List.of(PORCH), new SceneRules(List.of(PORCH), List.of(), Anchor.CENTER).zones());
    }

    @Test
    void anIdIsGivenAndNotBlank() {
        assertThrows(NullPointerException.class, () -> new Line(null, new Point(0, 0), new Point(1, 1), false, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new Line(" ", new Point(0, 0), new Point(1, 1), false, List.of()));
    }
}
