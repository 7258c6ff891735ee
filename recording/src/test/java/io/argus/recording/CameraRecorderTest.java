package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder's books balance: every packet received is written, dropped for the queue, skipped waiting for a
 * keyframe or lost to a write error; a write error (here: the camera's directory cannot be made) stops the recording
 * and it resumes by itself at a keyframe once the cause is gone.
 */
@Budget(seconds = 20)
class CameraRecorderTest {
    @TempDir
    Path dir;

    static void balanced(CameraRecorder.Stats s) {
        assertEquals(s.received(), s.written() + s.droppedQueueFull() + s.skippedWaitingKeyframe() + s.lostToErrors()
                + s.notRecorded() + s.preRollPackets(), s.toString());
    }

    @Test
    void everyPacketWrittenWhenTheQueueHasRoom() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            CameraRecorder r = new CameraRecorder("cam", index, 2_000, 64 << 20);
            Media.read(source, SegmentWriterTest.START, r::streamStarted, r::packet);
            r.streamEnded();
            assertTrue(r.close(10_000));
            CameraRecorder.Stats s = r.stats();
            balanced(s);
            assertEquals(Media.ffprobePackets(source), s.written(), s.toString());
            assertEquals(0, s.droppedQueueFull() + s.skippedWaitingKeyframe() + s.lostToErrors(), s.toString());
            assertEquals(4, s.segments());
            assertEquals(0, s.queuedBytes());
            long packets = index.segments("cam", 0, Long.MAX_VALUE).stream().mapToLong(Segment::packets).sum();
            assertEquals(s.written(), packets, "the index holds what was written");
        }
    }

    @Test
    void aFullQueueDropsAndCountsNeverBlocksTheReader() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            CameraRecorder r = new CameraRecorder("cam", index, 2_000, 0);
            long n = Media.read(source, SegmentWriterTest.START, r::streamStarted, r::packet);
            assertTrue(r.close(10_000));
            CameraRecorder.Stats s = r.stats();
            balanced(s);
            assertEquals(n, s.droppedQueueFull(), s.toString());
            assertEquals(0, s.segments());
        }
    }

    @Test
    void aWriteErrorStopsTheRecordingUntilItsCauseIsGone() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        StorageLayout layout = new StorageLayout(dir.resolve("store"));
        try (SegmentIndex index = SegmentIndex.open(layout)) {
            Path blocker = Files.createFile(layout.root().resolve("cam"));   // where the camera's directory must go
            CameraRecorder r = new CameraRecorder("cam", index, 2_000, 64 << 20, 100);
            long[] sent = new long[1];
            Media.read(source, SegmentWriterTest.START, r::streamStarted, (p, wall) -> {
                if (wall - SegmentWriterTest.START == 3_000) {
                    Waits.waitFor(() -> r.stats().lostToErrors() > 0, 10_000, "the first write error");
                    Files.delete(blocker);
                    // the packets come at once, not in real time: let the writer's pause after the error pass first
                    Waits.waitFor(() -> r.stats().retryAtMs() != 0 && System.currentTimeMillis() > r.stats().retryAtMs(),
                            10_000, "the end of the pause after the error");
                }
                r.packet(p, wall);
                sent[0]++;
            });
            r.streamEnded();
            assertTrue(r.close(10_000));
            CameraRecorder.Stats s = r.stats();
            balanced(s);
            assertTrue(s.lastError().contains("cam"), s.toString());
            assertTrue(s.lostToErrors() >= 1 && s.written() >= 4 * 25, s.toString());
            assertTrue(s.segments() >= 2, s.toString());
            assertEquals("stopped", s.state());
            assertEquals(0, s.retryAtMs(), "it tried again");
        }
    }
}
