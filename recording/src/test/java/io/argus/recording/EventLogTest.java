package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event log: an event's latest state kept by id across a reopen (a restart), found by the span it overlaps (an
 * open one overlaps everything after its start), newest first and bounded; a huge message is not kept; retention's
 * cut deletes what ended before it; a file that cannot be read is set aside and the log starts again.
 */
@Budget(seconds = 10)
class EventLogTest {
    @TempDir
    Path dir;

    @Test
    void eventsOutliveARestartAndAreFoundByTheirSpan() throws Exception {
        try (EventLog log = EventLog.open(dir)) {
            log.put(List.of(new EventLog.Event("a", "cam", 1_000, -1, "{\"id\":\"a\",\"type\":\"new\"}"),
                    new EventLog.Event("b", "cam", 5_000, 6_000, "{\"id\":\"b\"}"),
                    new EventLog.Event("c", "other", 2_000, 3_000, "{\"id\":\"c\"}")));
            log.put(List.of(new EventLog.Event("a", "cam", 1_000, 2_000, "{\"id\":\"a\",\"type\":\"end\"}"),
                    new EventLog.Event("huge", "cam", 1_500, 1_600, "\"" + "x".repeat(EventLog.MAX_EVENT_CHARS) + "\"")));
        }
        try (EventLog log = EventLog.open(dir)) {
            List<EventLog.Event> cam = log.between("cam", 0, 10_000, 100);
            assertEquals(List.of("b", "a"), cam.stream().map(EventLog.Event::id).toList(), "newest first, the huge one left out");
            assertEquals("{\"id\":\"a\",\"type\":\"end\"}", cam.get(1).json(), "the latest state");
            assertEquals(2_000, log.event("a").endMs());
            assertEquals(null, log.event("nope"));
            assertEquals(List.of("a"), log.between("cam", 1_900, 4_000, 100).stream().map(EventLog.Event::id).toList());
            assertEquals(List.of(), log.between("cam", 2_001, 4_000, 100), "a ended at 2.0 s");
            assertEquals(1, log.between("cam", 0, 10_000, 1).size(), "bounded");
            log.put(List.of(new EventLog.Event("open", "cam", 7_000, -1, "{}")));
            assertEquals("open", log.between("cam", 50_000, 60_000, 10).get(0).id(), "an open event overlaps what follows");
            assertEquals(1, log.deleteBefore("cam", 5_500), "a ended before the cut, b overlaps it");
            assertEquals(List.of("open", "b"), log.between("cam", 0, 100_000, 10).stream().map(EventLog.Event::id).toList());
            assertEquals(List.of("c"), log.between("other", 0, 10_000, 10).stream().map(EventLog.Event::id).toList());
            assertTrue(log.cameras().containsAll(List.of("cam", "other")));
        }
    }

    @Test
    void anUnreadableFileIsSetAsideAndTheLogStartsAgain() throws Exception {
        Files.writeString(dir.resolve(EventLog.FILE), "not a database, " + "x".repeat(5000));
        try (EventLog log = EventLog.open(dir)) {
            assertNotNull(log.setAside());
            assertEquals(List.of(), log.between("cam", 0, Long.MAX_VALUE, 10));
            log.put(List.of(new EventLog.Event("a", "cam", 1, 2, "{}")));
            assertEquals(1, log.between("cam", 0, 10, 10).size());
        }
    }
}
