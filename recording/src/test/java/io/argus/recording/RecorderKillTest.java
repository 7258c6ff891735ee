package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a crash and a full disk leave. A recorder process killed with SIGKILL in its third segment: the next open of
 * the index completes that segment's row from its file, and what was recorded is what the process had handed over
 * but for the last second or so (its fragments; "at most the segment in progress" is the promise). A disk that fills
 * (a 1 MB tmpfs, most of it another file's, root only): writes fail (the index's first, here), the recorder says
 * why, counts any packet it loses, goes on once retention has made room, and the next start indexes every segment.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 40)
class RecorderKillTest {
    @TempDir
    Path dir;

    @Test
    void killedMidSegmentTheIndexIsMendedAndAtMostASecondIsLost() throws Exception {
        Path source = Media.encode("libx264", 8, 25);
        Path store = dir.resolve("store");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), RecorderProcess.class.getName(),
                source.toString(), store.toString()).redirectErrorStream(true).start();
        long handed = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("handed ")) handed = Long.parseLong(line.substring(7));
                if (handed >= 140) break;   // 5.6 s: in the third 2 s segment
            }
            p.destroyForcibly();   // SIGKILL (it closes our end of its output too)
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
        assertTrue(handed >= 140, "the recorder process handed " + handed + " packets before it was killed");
        try (SegmentIndex index = SegmentIndex.open(new StorageLayout(store))) {
            SegmentIndex.Recovery r = index.recovery();
            assertEquals(1, r.rowsCompleted() + r.rowsAdded(), "the segment in progress read back: " + r);
            List<Segment> all = index.segments("cam", 0, Long.MAX_VALUE);
            assertEquals(3, all.size(), all.toString());
            long recorded = all.stream().mapToLong(Segment::packets).sum();
            // lost: the last fragment (a keyframe each second: up to 25 packets) and what waited in the queue; the
            // process may have handed a packet or two more than it had printed when the kill came (40 ms apart)
            assertTrue(recorded <= handed + 3 && recorded >= handed - 50, recorded + " packets recorded of " + handed + " handed over: " + r);
            for (Segment s : all) {
                assertTrue(s.complete(), s.toString());
                assertEquals(s.packets(), Media.ffprobePackets(index.layout().file(s.name())), s.name());
            }
            System.out.printf("recording: killed after %d packets handed over, %d recorded (%d lost), %s%n", handed, recorded,
                    handed - recorded, r);
        }
    }

    @Test
    void aFullDiskStopsTheRecordingUntilRetentionMakesRoom() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a small tmpfs needs root");
        Path source = Media.encode("libx264", 8, 25);
        Path disk = Files.createDirectories(dir.resolve("small-disk"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk.toString()).redirectErrorStream(true).start();
        String why = new String(mount.getInputStream().readAllBytes());
        Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs here: " + why);
        try (SegmentIndex index = SegmentIndex.open(new StorageLayout(disk.resolve("store")))) {
            // someone else's file leaves 256 KB: the 8 s source takes about 700 KB
            long free = Files.getFileStore(disk).getUsableSpace();
            Files.write(disk.resolve("filler"), new byte[(int) Math.max(0, free - 256 * 1024)]);
            CameraRecorder r = new CameraRecorder("cam", index, 1_000, 64 << 20, 100);
            long usable = 256 * 1024;
            boolean[] freed = {false};
            long[] writtenWhenFull = {-1};
            Media.read(source, SegmentWriterTest.START, r::streamStarted, (p, wall) -> {
                if (!freed[0] && r.stats().lastError() != null) {
                    // full: what a retention pass under keepFreeBytes does, then the writer's pause after the error
                    writtenWhenFull[0] = r.stats().written();
                    List<Retention.Deletion> gone = Retention.enforce(index, new Retention.Rules(0, usable / 2, java.util.Map.of()),
                            System.currentTimeMillis(), () -> {
                                try {
                                    return Files.getFileStore(disk).getUsableSpace();
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            });
                    assertTrue(!gone.isEmpty(), "retention deleted the oldest segments");
                    freed[0] = true;
                    io.argus.testkit.Waits.waitFor(() -> r.stats().retryAtMs() == 0 || System.currentTimeMillis() > r.stats().retryAtMs(),
                            10_000, "the end of the pause after the error");
                }
                r.packet(p, wall);
                if (!freed[0]) {
                    // at most the queue's worth ahead of the writer, so the error is seen before the file ends
                    io.argus.testkit.Waits.waitFor(() -> r.stats().queuedBytes() < 200_000, 10_000, "the writer catching up");
                }
            });
            r.streamEnded();
            assertTrue(r.close(10_000));
            CameraRecorder.Stats s = r.stats();
            CameraRecorderTest.balanced(s);
            assertTrue(freed[0], "the disk filled: " + s);
            assertTrue(s.lastError() != null && (s.lastError().contains("No space left") || s.lastError().contains("full")), s.toString());
            // the index's own writes fail first on this disk (SQLite: "database or disk is full"), the segments' may too;
            // with room again the next start indexes every segment file whole
            Files.delete(disk.resolve("filler"));
            try (SegmentIndex again = SegmentIndex.open(index.layout())) {
                List<Segment> all = again.segments("cam", 0, Long.MAX_VALUE);
                assertTrue(!all.isEmpty() && all.stream().allMatch(Segment::complete), all.toString());
                long kept = all.stream().mapToLong(Segment::packets).sum();
                assertTrue(kept <= s.written(), kept + " packets kept of " + s.written() + " written");
            }
            assertTrue(s.written() > writtenWhenFull[0], "recording resumed after retention: " + s + ", written when full " + writtenWhenFull[0]);
            System.out.printf("recording: the disk filled after %d packets; then %s%n", writtenWhenFull[0], s);
        } finally {
            new ProcessBuilder("umount", "-l", disk.toString()).start().waitFor();
        }
    }
}
