package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Frames' boxes written a second at a time, read back by time range and camera, deleted before a time, kept across a reopen. */
@Budget(seconds = 10)
class DetectionLogTest {
    @TempDir
    Path dir;

    @Test
    void framesAreReadBackByCameraAndTimeAndDeletedBeforeATime() throws Exception {
        try (DetectionLog log = DetectionLog.open(dir)) {
            assertNull(log.setAside());
            List<DetectionLog.Frame> second = new ArrayList<>();
            for (int i = 0; i < 25; i++) second.add(new DetectionLog.Frame(1_000 + 40L * i, 384, 384, "[[\"person\",0.9,1,2,3,4,7]]"));
            log.append("a", second);
            log.append("b", List.of(new DetectionLog.Frame(1_000, 640, 480, "[]")));
            assertEquals(25, log.between("a", 0, 10_000, 100).size());
            assertEquals(10, log.between("a", 1_200, 1_600, 100).size(), "40 ms apart in [1200, 1600)");
            assertEquals(3, log.between("a", 0, 10_000, 3).size(), "the limit");
            assertEquals(1_000, log.between("a", 0, 10_000, 3).get(0).timeMs(), "oldest first");
            assertEquals("[[\"person\",0.9,1,2,3,4,7]]", log.between("a", 0, 10_000, 1).get(0).boxes());
            assertEquals(List.of("a", "b"), log.cameras().stream().sorted().toList());
            assertEquals(5, log.deleteBefore("a", 1_200));
            assertEquals(20, log.between("a", 0, 10_000, 100).size());
            assertEquals(1, log.between("b", 0, 10_000, 100).size(), "another camera's untouched");
        }
        try (DetectionLog again = DetectionLog.open(dir)) {
            assertEquals(20, again.between("a", 0, 10_000, 100).size(), "kept across a reopen");
        }
    }

    @Test
    void anUnreadableLogIsSetAsideAndStartedAgain() throws Exception {
        Files.write(dir.resolve(DetectionLog.FILE), "not a database, not at all, but long enough to be read as one".repeat(100).getBytes());
        try (DetectionLog log = DetectionLog.open(dir)) {
            assertNotNull(log.setAside());
            assertTrue(log.between("a", 0, Long.MAX_VALUE, 10).isEmpty());
            try (var files = Files.list(dir)) {
                assertTrue(files.anyMatch(f -> f.getFileName().toString().startsWith(DetectionLog.FILE + ".broken-")));
            }
        }
    }
}
