package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.recording.CameraRecorder.Mode;
import io.argus.recording.CameraRecorder.Options;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events and motion modes record only what is asked for, with its rolls: from the keyframe at or before an event's
 * start less the pre-roll (kept in memory until then) to its end plus the post-roll and on to the next keyframe, a
 * segment per span; what lies
 * between spans is not written but counted, so the books still balance.
 */
@Budget(seconds = 20)
class RecordingModesTest {
    static final long START = SegmentWriterTest.START;

    @TempDir
    Path dir;

    /** Wall time and keyframe flag of each of the source's packets, as a live camera would deliver them. */
    record Packet(long wallMs, boolean key) {}

    static List<Packet> packets(Path source) throws Exception {
        List<Packet> out = new ArrayList<>();
        Media.read(source, START, (par, tb) -> {}, (p, wall) -> out.add(new Packet(wall, (p.flags() & AV_PKT_FLAG_KEY) != 0)));
        return out;
    }

    /** Packets of the span from the last keyframe at or before {@code fromMs} to the last packet at or before {@code toMs}. */
    static long expectedPackets(List<Packet> all, long fromMs, long toMs) {
        long start = all.get(0).wallMs();
        for (Packet p : all) if (p.key() && p.wallMs() <= fromMs) start = p.wallMs();
        long s = start;
        return all.stream().filter(p -> p.wallMs() >= s && p.wallMs() <= toMs).count();
    }

    @Test
    void eventsModeRecordsEachEventWithItsRollsAndNothingBetween() throws Exception {
        Path source = Media.encode("libx264", 20, 25);   // a keyframe each second
        List<Packet> all = packets(source);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            CameraRecorder r = new CameraRecorder("cam", index, 60_000, 64 << 20,
                    new Options(Mode.EVENTS, 3_000, 2_000, 25, 0.005, 64 << 20));
            // an event from 10.0 to 12.0 s, and one from 18.5 s still open when the stream ends
            r.around("e1", START + 10_000, START + 12_000);
            r.around("e2", START + 18_500, -1);
            Media.read(source, START, r::streamStarted, r::packet);
            r.streamEnded();
            assertTrue(r.close(10_000));
            CameraRecorder.Stats s = r.stats();
            CameraRecorderTest.balanced(s);
            List<Segment> segments = index.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(2, segments.size(), segments.toString());
            // e1: 7.0 s (10 less the 3 s pre-roll, a keyframe) to 14.0 s (12 plus the 2 s post-roll), and on to the
            // next keyframe (15 s), where a recording ends
            assertEquals(START + 7_000, segments.get(0).startMs(), segments.toString());
            assertEquals(expectedPackets(all, START + 7_000, START + 14_999), segments.get(0).packets(), segments.toString());
            // e2: from the keyframe at 15.0 s (18.5 less 3) to the end of the stream
            assertEquals(START + 15_000, segments.get(1).startMs(), segments.toString());
            assertEquals(expectedPackets(all, START + 15_500, Long.MAX_VALUE), segments.get(1).packets(), segments.toString());
            assertEquals(segments.get(0).packets() + segments.get(1).packets(), s.written(), s.toString());
            assertEquals(all.size() - s.written(), s.notRecorded(), "the rest was not recorded, and counted: " + s);
            assertEquals(0, s.droppedQueueFull() + s.skippedWaitingKeyframe() + s.lostToErrors(), s.toString());
        }
    }

    @Test
    void anEventKnownLateStillGetsItsWholePreRoll() throws Exception {
        Path source = Media.encode("libx264", 20, 25);
        List<Packet> all = packets(source);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            CameraRecorder r = new CameraRecorder("cam", index, 60_000, 64 << 20,
                    new Options(Mode.EVENTS, 4_000, 1_000, 25, 0.005, 64 << 20));
            // the event began at 12.2 s and is known 1.5 s later (the detector's latency): asked for at 13.7 s
            Media.read(source, START, r::streamStarted, (p, wall) -> {
                if (wall >= START + 13_700 && wall < START + 13_740) {
                    caughtUp(r);   // as live: the event is known once the packets before it were handled
                    r.around("late", START + 12_200, START + 14_000);
                }
                r.packet(p, wall);
            });
            r.streamEnded();
            assertTrue(r.close(10_000));
            List<Segment> segments = index.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(1, segments.size(), segments.toString());
            assertEquals(START + 8_000, segments.get(0).startMs(), "8.2 s is in the group that starts at 8 s: " + segments);
            assertEquals(expectedPackets(all, START + 8_200, START + 15_999), segments.get(0).packets(), segments.toString());
            CameraRecorderTest.balanced(r.stats());
        }
    }

    @Test
    void aPreRollLargerThanItsBudgetIsShortenedNotUnbounded() throws Exception {
        Path source = Media.encode("libx264", 20, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            long budget = 200_000;   // bytes: a few seconds of this source, less than the 60 s asked for
            CameraRecorder r = new CameraRecorder("cam", index, 60_000, 64 << 20,
                    new Options(Mode.EVENTS, 60_000, 0, 25, 0.005, budget));
            Media.read(source, START, r::streamStarted, (p, wall) -> {
                if (wall == START + 19_000) {
                    caughtUp(r);
                    r.around("e", START + 19_000, START + 19_500);
                }
                r.packet(p, wall);
            });
            r.streamEnded();
            assertTrue(r.close(10_000));
            List<Segment> segments = index.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(1, segments.size(), segments + " " + r.stats());
            assertTrue(segments.get(0).startMs() > START, "shortened: " + segments);
            assertTrue(segments.get(0).bytes() <= budget + 100_000, "within the budget (and the file's headers): " + segments);
            CameraRecorderTest.balanced(r.stats());
        }
    }

    @Test
    void motionModeRecordsWhileThePictureMoves() throws Exception {
        Path source = Media.encode("libx264", 20, 25);
        List<Packet> all = packets(source);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            CameraRecorder r = new CameraRecorder("cam", index, 60_000, 64 << 20,
                    new Options(Mode.MOTION, 2_000, 2_000, 25, 0.01, 64 << 20));
            assertTrue(r.wantsPictures());
            ByteBuffer still = picture(320, 240, -1);
            // the packets' pictures: still, except a square crossing the picture from 9.0 to 10.0 s
            Media.read(source, START, r::streamStarted, (p, wall) -> {
                long t = wall - START;
                r.picture(t >= 9_000 && t < 10_000 ? picture(320, 240, (int) ((t - 9_000) / 4)) : still, 320, 240, 320 * 3, wall);
                r.packet(p, wall);
            });
            r.streamEnded();
            assertTrue(r.close(10_000));
            List<Segment> segments = index.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(1, segments.size(), segments.toString());
            // motion from 9.0 s to 10.0 s, and while the square's trail fades from the running average (under half a
            // second at ALPHA): 7.0 s to 12.0-13.0 s with the rolls, then on to the next keyframe
            assertEquals(START + 7_000, segments.get(0).startMs(), segments.toString());
            long packets = segments.get(0).packets();
            assertTrue(packets >= expectedPackets(all, START + 7_000, START + 11_999)
                    && packets <= expectedPackets(all, START + 7_000, START + 13_999), packets + " packets: " + segments);
            CameraRecorderTest.balanced(r.stats());
        }
    }

    /** The packets come faster than live here: waits for the writer to have handled those given so far. */
    static void caughtUp(CameraRecorder r) throws Exception {
        Waits.waitFor(() -> r.stats().queuedBytes() == 0, 10_000, "the writer to catch up");
    }

    /** A grey picture, with a white 60x60 square at x = {@code squareX} when it is 0 or more. */
    static ByteBuffer picture(int w, int h, int squareX) {
        ByteBuffer b = ByteBuffer.allocateDirect(w * h * 3);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                byte v = (byte) (squareX >= 0 && x >= squareX && x < squareX + 60 && y >= 90 && y < 150 ? 250 : 80);
                b.put(v).put(v).put(v);
            }
        }
        return b.flip();
    }
}
