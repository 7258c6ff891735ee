package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments made by stream copy hold every packet of the source, start on keyframes, decode on their own (ffmpeg) and
 * meet end to start; a segment whose writer never closed it (a killed process) plays up to its last fragment.
 */
@Budget(seconds = 20)
class SegmentWriterTest {
    @TempDir
    Path dir;

    static final long START = 1_764_400_000_000L;   // 2025-11-29T07:06:40Z

    @Test
    void h264SegmentsHoldEveryPacketOfTheSourceAndMeetEndToStart() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        List<Segment> closed = record(source, 3_000);
        assertEquals(3, closed.size(), "8 s in 3 s segments: " + closed);
        checkSegments(source, closed);
        assertEquals(3_000, closed.get(0).durationMs(), 40, "first segment: " + closed.get(0));
        assertEquals(3_000, closed.get(1).durationMs(), 40, "second segment: " + closed.get(1));
    }

    @Test
    void hevcToo() throws Exception {
        Path source = Media.encode("libx265", 4, 25);
        List<Segment> closed = record(source, 2_000);
        assertEquals(2, closed.size(), "4 s in 2 s segments: " + closed);
        checkSegments(source, closed);
    }

    @Test
    void aSegmentNeverClosedPlaysUpToItsLastFragment() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        List<Segment> opened = new ArrayList<>();
        SegmentWriter[] writer = new SegmentWriter[1];
        long[] handed = new long[1];
        Media.read(source, START, (par, tb) -> writer[0] = new SegmentWriter("cam", layout, par, tb, 60_000,
                listener(opened, new ArrayList<>())), (p, wall) -> {
            if (wall - START < 7_000) {   // 7 s of a 60 s segment, then the process "dies"
                writer[0].write(p, wall);
                handed[0]++;
            }
        });
        // the file as a kill would leave it: copied while the writer still holds it open
        Path file = layout.file(opened.get(0).name());
        Path left = dir.resolve("left.mp4");
        Files.copy(file, left);
        SegmentProbe.Contents c = SegmentProbe.read(left);
        // fragments are cut at each keyframe (every second) and handed to the OS at once: at most the last second lost
        assertTrue(c.packets() >= handed[0] - 26 && c.packets() <= handed[0], c + " of " + handed[0] + " packets written");
        assertTrue(c.startsWithKeyframe());
        assertEquals(c.packets(), Media.ffprobePackets(left), "ffprobe reads the same packets");
        writer[0].close();
    }

    private List<Segment> record(Path source, long segmentMs) throws Exception {
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        List<Segment> opened = new ArrayList<>();
        List<Segment> closed = new ArrayList<>();
        SegmentWriter[] writer = new SegmentWriter[1];
        Media.read(source, START, (par, tb) -> writer[0] = new SegmentWriter("cam", layout, par, tb, segmentMs,
                listener(opened, closed)), (p, wall) -> writer[0].write(p, wall));
        writer[0].close();
        assertEquals(opened.size(), closed.size());
        return closed;
    }

    private void checkSegments(Path source, List<Segment> closed) throws Exception {
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        long packets = 0;
        long total = 0;
        for (int i = 0; i < closed.size(); i++) {
            Segment s = closed.get(i);
            Path f = layout.file(s.name());
            SegmentProbe.Contents c = SegmentProbe.read(f);
            assertTrue(c.startsWithKeyframe(), s.name() + " starts with a keyframe");
            assertEquals(s.packets(), c.packets(), s.name() + ": packets written vs read back");
            assertEquals(c.packets(), Media.ffprobePackets(f), s.name() + ": ffprobe's count");
            assertEquals(Files.size(f), s.bytes());
            assertEquals("", Media.decodeErrors(f), s.name() + " decodes on its own");
            if (i > 0) assertEquals(closed.get(i - 1).endMs(), s.startMs(), 1, "segment " + i + " starts where the one before ends");
            packets += c.packets();
            total += s.durationMs();
        }
        assertEquals(START, closed.get(0).startMs());
        assertEquals(Media.ffprobePackets(source), packets, "every packet of the source, once");
        double sourceMs = Media.ffprobeSeconds(source) * 1000;
        assertEquals(sourceMs, total, sourceMs * 0.01, "the segments' durations add up to the source's");
    }

    private static SegmentWriter.Listener listener(List<Segment> opened, List<Segment> closed) {
        return new SegmentWriter.Listener() {
            @Override public void opened(Segment s) { opened.add(s); }

            @Override public void closed(Segment s) { closed.add(s); }
        };
    }
}
