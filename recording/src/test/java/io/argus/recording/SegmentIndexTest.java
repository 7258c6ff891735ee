package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index follows the files: after a crash it reads back the segment that was being written, adds files it did not
 * know, drops rows whose file is gone, deletes files that hold nothing; a database that cannot be read is set aside
 * and rebuilt from the files. Names from outside are parsed, never used as paths.
 */
@Budget(seconds = 20)
class SegmentIndexTest {
    @TempDir
    Path dir;

    @Test
    void afterACrashTheIndexIsBroughtBackInLineWithTheFiles() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        List<Segment> closed = new ArrayList<>();
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            assertTrue(index.recovery().clean());
            SegmentWriter[] w = new SegmentWriter[1];
            Media.read(source, SegmentWriterTest.START, (par, tb) -> w[0] = new SegmentWriter("cam", layout, par, tb, 2_000,
                    new SegmentWriter.Listener() {
                        @Override public void opened(Segment s) { index.opened(s); }

                        @Override public void closed(Segment s) {
                            index.closed(s);
                            closed.add(s);
                        }
                    }), (p, wall) -> {
                        // the last segment is left open, as a kill -9 leaves it, with one fragment (its first second) written
                        if (wall - SegmentWriterTest.START < 7_500) w[0].write(p, wall);
                    });
            assertEquals(3, closed.size());
            Segment open = w[0].current();
            assertNotNull(open);
            // what the crash leaves: the open segment's row says "being written"; and meanwhile a file was deleted
            // by hand, and one was copied in without the index knowing
            assertEquals(-1, index.segments("cam", open.startMs(), open.startMs() + 1).get(0).endMs());
            Path copied = Files.copy(layout.file(open.name()), layout.prepare("cam/2025-11-29/1764400100000.mp4"));
            Files.delete(layout.file(closed.get(0).name()));
            Path empty = Files.createFile(layout.prepare("cam/2025-11-29/1764400200000.mp4"));

            try (SegmentIndex again = SegmentIndex.open(layout)) {
                SegmentIndex.Recovery r = again.recovery();
                assertEquals(3, r.filesRead(), r.toString());   // the open one, the copied one, the empty one
                assertEquals(1, r.rowsCompleted(), r.toString());
                assertEquals(1, r.rowsAdded(), r.toString());
                assertEquals(1, r.rowsDropped(), r.toString());
                assertEquals(1, r.emptyFilesDeleted(), r.toString());
                assertNull(r.rebuiltBecause());
                assertFalse(Files.exists(empty));
                Segment mended = again.segments("cam", open.startMs(), open.startMs() + 1).get(0);
                assertTrue(mended.complete());
                SegmentProbe.Contents c = SegmentProbe.read(layout.file(open.name()));
                assertEquals(c.packets(), mended.packets());
                assertEquals(open.startMs() + c.durationMs(), mended.endMs());
                assertTrue(c.durationMs() >= 500, "the open segment kept its whole fragments: " + c);
                assertEquals(1, again.segments("cam", 1764400100000L, 1764400100001L).size(), "the copied file");
                assertEquals(4, again.segments("cam", 0, Long.MAX_VALUE).size());
                assertTrue(Files.exists(copied));
            }
            w[0].close();
        }
    }

    @Test
    void anUnreadableDatabaseIsSetAsideAndRebuiltFromTheFiles() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            SegmentWriter[] w = new SegmentWriter[1];
            Media.read(source, SegmentWriterTest.START, (par, tb) -> w[0] = new SegmentWriter("cam", layout, par, tb, 2_000,
                    new SegmentWriter.Listener() {
                        @Override public void opened(Segment s) { index.opened(s); }

                        @Override public void closed(Segment s) { index.closed(s); }
                    }), (p, wall) -> w[0].write(p, wall));
            w[0].close();
        }
        List<Segment> before;
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            before = index.segments("cam", 0, Long.MAX_VALUE);
        }
        assertEquals(4, before.size());
        byte[] garbage = new byte[8192];
        java.util.Arrays.fill(garbage, (byte) 0x5a);
        Files.write(layout.root().resolve(SegmentIndex.FILE), garbage);
        try (SegmentIndex rebuilt = SegmentIndex.open(layout)) {
            assertNotNull(rebuilt.recovery().rebuiltBecause(), rebuilt.recovery().toString());
            assertEquals(4, rebuilt.recovery().rowsAdded());
            List<Segment> after = rebuilt.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(before.size(), after.size());
            for (int i = 0; i < before.size(); i++) {
                assertEquals(before.get(i).name(), after.get(i).name());
                assertEquals(before.get(i).packets(), after.get(i).packets());
                assertEquals(before.get(i).bytes(), after.get(i).bytes());
                assertEquals(before.get(i).durationMs(), after.get(i).durationMs(), 1);
            }
        }
        try (var s = Files.list(layout.root())) {
            assertEquals(1, s.filter(p -> p.getFileName().toString().startsWith(SegmentIndex.FILE + ".broken-")).count(),
                    "the unreadable database kept aside");
        }
    }

    @Test
    void namesFromOutsideAreParsedNeverUsedAsPaths() {
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        for (String bad : new String[] {"../etc/passwd", "cam/../../x/1.mp4", "cam/2025-11-29/../../1.mp4", "/abs/2025-11-29/1.mp4",
                "cam/2025-11-29/1.mp4/x", "cam/2025-1-29/1.mp4", "cam/2025-11-29/1.txt", ".hidden/2025-11-29/1.mp4",
                "cam\\..\\x/2025-11-29/1.mp4", "cam/2025-11-29/1\0.mp4", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> layout.file(bad), bad);
            assertTrue(e.getMessage().startsWith("segment name") || e.getMessage().startsWith("camera id"), e.getMessage());
        }
        assertEquals(layout.root().resolve("cam/2025-11-29/1764400000000.mp4"), layout.file("cam/2025-11-29/1764400000000.mp4"));
        assertEquals(1764400000000L, StorageLayout.startOf("cam/2025-11-29/1764400000000-2.mp4"));
        assertThrows(IllegalArgumentException.class, () -> layout.cameraDir(".."));
    }
}
