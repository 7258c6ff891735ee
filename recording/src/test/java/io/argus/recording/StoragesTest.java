package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several storage directories: each camera records into its own, and what was recorded is read from all of them, a
 * camera's segments in two directories (it moved) merged by time; a directory that cannot be opened is named and the
 * others work; a segment is found wherever it is, and a name that is not a segment's is refused.
 */
@Budget(seconds = 15)
class StoragesTest {
    @TempDir
    Path dir;

    @Test
    void camerasRecordIntoTheirDirectoryAndAreReadFromAll() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        Path blocked = Files.writeString(dir.resolve("not-a-directory"), "x");
        try (Storages all = Storages.open(List.of(new Storages.Dir("main", dir.resolve("ssd")),
                new Storages.Dir("hdd", dir.resolve("hdd")), new Storages.Dir("broken", blocked)))) {
            assertEquals(List.of("main", "hdd"), List.copyOf(all.indexes().keySet()));
            assertTrue(all.failures().get("broken").contains(blocked.toString()), all.failures().toString());
            assertNull(all.index("broken"));

            // cam records 8 s into main, then (moved to hdd) the next 8 s there; other into hdd only
            record(all.index("main"), "cam", source, SegmentWriterTest.START);
            record(all.index("hdd"), "cam", source, SegmentWriterTest.START + 8_000);
            record(all.index("hdd"), "other", source, SegmentWriterTest.START);

            List<Segment> cam = all.segments("cam", 0, Long.MAX_VALUE, 100);
            assertEquals(8, cam.size(), cam.toString());
            for (int i = 1; i < cam.size(); i++) assertTrue(cam.get(i - 1).startMs() < cam.get(i).startMs(), "by time: " + cam);
            assertEquals(3, all.segments("cam", 0, Long.MAX_VALUE, 3).size());
            assertEquals(SegmentWriterTest.START + 6_000, all.segments("cam", SegmentWriterTest.START + 7_000,
                    SegmentWriterTest.START + 9_000, 100).get(0).startMs(), "a range across the move");
            List<ClipWriter.Part> parts = all.partsOf("cam", SegmentWriterTest.START + 7_000, SegmentWriterTest.START + 9_000);
            assertEquals(2, parts.size(), parts.toString());
            assertTrue(parts.get(0).file().startsWith(dir.resolve("ssd")) && parts.get(1).file().startsWith(dir.resolve("hdd")), parts.toString());

            // the timeline's view: the 8 segments in two directories are one stretch of recorded time
            List<SegmentIndex.Span> spans = all.spans("cam", 0, Long.MAX_VALUE, 1_000, 100);
            assertEquals(1, spans.size(), spans.toString());
            assertEquals(cam.get(0).startMs(), spans.get(0).startMs());
            assertEquals(cam.get(7).endMs(), spans.get(0).endMs());
            // with no tolerance at the move (the second recording starts where the first's last picture ends, not
            // where its packets stopped) the two directories' stretches may stay apart: never more than two
            assertTrue(all.spans("cam", 0, Long.MAX_VALUE, 0, 100).size() <= 2);
            // a gap: other's recording starts 8 s before cam's second, and is a span of its own
            record(all.index("main"), "gappy", source, SegmentWriterTest.START);
            record(all.index("hdd"), "gappy", source, SegmentWriterTest.START + 20_000);
            List<SegmentIndex.Span> two = all.spans("gappy", 0, Long.MAX_VALUE, 1_000, 100);
            assertEquals(2, two.size(), two.toString());
            assertEquals(SegmentWriterTest.START + 20_000, two.get(1).startMs(), two.toString());
            assertEquals(2, all.spans("gappy", 0, Long.MAX_VALUE, 1_000, 1).size(), "one more than the limit says there are more");
            assertEquals(1, all.spans("gappy", SegmentWriterTest.START + 19_000, Long.MAX_VALUE, 1_000, 100).size(), "within the range");

            Segment onHdd = cam.get(5);
            assertEquals(all.index("hdd").layout().file(onHdd.name()), all.file(onHdd.name()));
            assertTrue(all.file(cam.get(0).name()).startsWith(dir.resolve("ssd")));
            assertThrows(NoSuchElementException.class, () -> all.file("cam/2025-11-29/1.mp4"));
            assertThrows(IllegalArgumentException.class, () -> all.file("cam/2025-11-29/../../../x.mp4"));
            assertThrows(IllegalArgumentException.class, () -> all.file("../hdd/cam/2025-11-29/1.mp4"));

            assertEquals(all.index("main").bytesByCamera().get("cam") + all.index("hdd").bytesByCamera().get("cam"),
                    all.bytesByCamera().get("cam"));
            assertEquals(all.index("hdd").bytesByCamera().get("other"), all.bytesByCamera().get("other"));
        }
    }

    private static void record(SegmentIndex index, String camera, Path source, long startMs) throws Exception {
        CameraRecorder r = new CameraRecorder(camera, index, 2_000, 64 << 20);
        Media.read(source, startMs, r::streamStarted, r::packet);
        r.streamEnded();
        assertTrue(r.close(10_000));
    }
}
