package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clip of a time range holds exactly the source's pictures of that range, from the keyframe at or before its start,
 * across segment boundaries, decoded picture for picture as the source (stream copy: ffmpeg's per-frame MD5s equal).
 */
@Budget(seconds = 20)
class ClipWriterTest {
    static final long START = 1_764_400_000_000L;
    static final int FPS = 25;
    static final long FRAME_MS = 1000 / FPS;

    @TempDir
    Path dir;
    Path source;
    StorageLayout layout;
    List<ClipWriter.Part> parts = new ArrayList<>();

    /** 8 s at 25 fps, a keyframe each second, in 3 s segments: [0, 3), [3, 6), [6, 8) s. */
    @BeforeEach
    void record() throws Exception {
        source = Media.encode("libx264", 8, FPS);
        layout = new StorageLayout(dir.resolve("store"));
        SegmentWriter[] writer = new SegmentWriter[1];
        List<Segment> closed = new ArrayList<>();
        Media.read(source, START, (par, tb) -> writer[0] = new SegmentWriter("cam", layout, par, tb, 3_000,
                new SegmentWriter.Listener() {
                    @Override public void opened(Segment s) {}

                    @Override public void closed(Segment s) { closed.add(s); }
                }), (p, wall) -> writer[0].write(p, wall));
        writer[0].close();
        assertEquals(3, closed.size());
        for (Segment s : closed) parts.add(new ClipWriter.Part(layout.file(s.name()), s.startMs()));
    }

    @Test
    void aRangeAcrossTwoSegmentsHoldsTheSourcePicturesFromTheKeyframeBeforeItsStart() throws Exception {
        Path clip = dir.resolve("clip.mp4");
        // 2.5 s to 5.5 s: the keyframe before 2.5 s is at 2 s; 3 s is a segment boundary
        ClipWriter.Written w = ClipWriter.write(parts, START + 2_500, START + 5_500, clip);
        long frames = (5_500 - 2_000 + FRAME_MS - 1) / FRAME_MS;   // pictures at 2.00, 2.04, ... 5.48 s
        assertEquals(88, frames);
        assertEquals(frames, w.packets(), w.toString());
        assertEquals(START + 2_000, w.fromMs());
        assertEquals(START + 5_480, w.toMs());
        assertNull(w.cutShort());
        assertEquals(frames, Media.ffprobePackets(clip), "ffprobe's count");
        assertEquals("", Media.decodeErrors(clip), "the clip decodes on its own");
        // MP4's duration counts from the first decoding time, two B-frame pictures (80 ms) before the first shown one
        assertEquals((frames + 2) * FRAME_MS / 1000.0, Media.ffprobeSeconds(clip), 0.02, "the clip's duration");
        List<String> sourceFrames = frameMd5(source);
        assertEquals(sourceFrames.subList(50, 50 + (int) frames), frameMd5(clip), "the clip's pictures are the source's 50-137");
        assertTrue(Files.size(clip) == w.bytes());
        assertTrue(Files.list(dir).noneMatch(f -> f.toString().endsWith(".partial")), "nothing left beside the clip");
    }

    @Test
    void aRangeStartingInARecordedGapStartsAtTheNextSegment() throws Exception {
        // only the last two segments given: the range's start (1 s) is before them, so the clip starts at 3 s
        ClipWriter.Written w = ClipWriter.write(parts.subList(1, 3), START + 1_000, START + 4_000, dir.resolve("c.mp4"));
        assertEquals(START + 3_000, w.fromMs());
        assertEquals(25, w.packets());
    }

    @Test
    void aRangeWithNothingRecordedIsRefusedAndLeavesNoFile() {
        Path clip = dir.resolve("none.mp4");
        IOException e = assertThrows(IOException.class, () -> ClipWriter.write(parts, START + 9_000, START + 12_000, clip));
        assertTrue(e.getMessage().contains("nothing recorded"), e.getMessage());
        assertTrue(Files.notExists(clip));
        assertThrows(IllegalArgumentException.class, () -> ClipWriter.write(parts, START + 5_000, START + 5_000, clip));
    }

    /** ffmpeg's MD5 of each decoded picture, in order. */
    static List<String> frameMd5(Path file) throws Exception {
        List<String> md5 = new ArrayList<>();
        for (String line : Media.run(List.of("ffmpeg", "-v", "error", "-i", file.toString(), "-map", "0:v:0", "-f", "framemd5", "-")).split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] cols = line.split(",");
            md5.add(cols[cols.length - 1].trim());
        }
        return md5;
    }
}
