package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention deletes the oldest first and only as much as its rules ask: a camera's days, a camera's bytes, the
 * directory's bytes, the disk's free space; never the segment being written.
 */
@Budget(seconds = 10)
class RetentionTest {
    @TempDir
    Path dir;

    static final long DAY = 86_400_000L;
    static final long NOW = 1_764_400_000_000L;

    /** 10 segments per camera, one an hour for the last 10 hours... and for "old", 10 a day for the last 10 days. */
    private SegmentIndex fill(StorageLayout layout) throws Exception {
        SegmentIndex index = SegmentIndex.open(layout);
        for (int i = 0; i < 10; i++) {
            add(index, layout, "a", NOW - (10 - i) * 3_600_000L, 1_000);
            add(index, layout, "b", NOW - (10 - i) * 3_600_000L + 60_000, 2_000);
            add(index, layout, "old", NOW - (10 - i) * DAY, 500);
        }
        index.opened(new Segment("a", layout.newSegmentName("a", NOW), NOW, -1, 0, 0));
        Files.write(layout.prepare(layout.newSegmentName("a", NOW)), new byte[10]);
        return index;
    }

    private static void add(SegmentIndex index, StorageLayout layout, String camera, long start, int bytes) throws Exception {
        String name = layout.newSegmentName(camera, start);
        Files.write(layout.prepare(name), new byte[bytes]);
        index.closed(new Segment(camera, name, start, start + 10_000, bytes, 250));
    }

    @Test
    void daysThenCameraBytesThenDirectoryBytesOldestFirst() throws Exception {
        StorageLayout layout = new StorageLayout(dir);
        try (SegmentIndex index = fill(layout)) {
            Retention.Rules rules = new Retention.Rules(20_000, 0, Map.of(
                    "old", new Retention.CameraRule(3, 0),
                    "b", new Retention.CameraRule(0, 15_000)));
            List<Retention.Deletion> gone = Retention.enforce(index, rules, NOW, () -> Long.MAX_VALUE);
            // old: 7 segments ended more than 3 days ago (10, 9, ... 4 days old)
            List<Retention.Deletion> old = gone.stream().filter(d -> d.reason().equals("older than 3 days")).toList();
            assertEquals(7, old.size(), gone.toString());
            assertTrue(old.stream().allMatch(d -> d.segment().camera().equals("old")), gone.toString());
            // b: 20,000 bytes over a 15,000 budget: its 3 oldest (6,000 bytes) go
            List<Retention.Deletion> b = gone.stream().filter(d -> d.reason().equals("b over its 15000 bytes")).toList();
            assertEquals(3, b.size(), gone.toString());
            assertTrue(b.stream().allMatch(d -> d.segment().camera().equals("b")), gone.toString());
            // the directory then holds a 10,000 + b 14,000 + old 1,500 (+10 of the open one, not counted until closed)
            // = 25,500 > 20,000: the oldest of any camera go until it fits
            Map<String, Long> left = index.bytesByCamera();
            long total = left.values().stream().mapToLong(Long::longValue).sum();
            assertTrue(total <= 20_000, left.toString());
            for (int i = 1; i < gone.size(); i++) {
                if (gone.get(i).reason().startsWith("directory")) {
                    assertTrue(gone.get(i - 1).segment().startMs() <= gone.get(i).segment().startMs()
                            || !gone.get(i - 1).reason().startsWith("directory"), "oldest first: " + gone);
                }
            }
            for (Retention.Deletion d : gone) assertFalse(Files.exists(layout.file(d.segment().name())), d.toString());
            assertEquals(1, index.segments("a", NOW, NOW + 1).size(), "the segment being written stays");
            // what is left is the newest: every deleted segment of the directory rule is older than every kept one
            long newestDeleted = gone.stream().filter(d -> d.reason().startsWith("directory")).mapToLong(d -> d.segment().startMs()).max().orElse(0);
            long oldestKept = index.oldestFirst(null, 1).get(0).startMs();
            assertTrue(newestDeleted <= oldestKept, newestDeleted + " deleted, " + oldestKept + " kept");
            assertTrue(Retention.enforce(index, rules, NOW, () -> Long.MAX_VALUE).isEmpty(), "a second pass has nothing to do");
            long directory = gone.stream().filter(d -> d.reason().startsWith("directory")).count();
            System.out.println("retention: " + old.size() + " segments by age, " + b.size() + " by b's budget, " + directory
                    + " by the directory's 20,000 bytes (oldest first); left " + total + " bytes " + left);
        }
    }

    @Test
    void freeSpaceUnderItsFloorDeletesTheOldestUntilItIsBack() throws Exception {
        StorageLayout layout = new StorageLayout(dir);
        try (SegmentIndex index = fill(layout)) {
            // a disk whose free space grows by what is deleted: 5,000 bytes short
            AtomicLong free = new AtomicLong(95_000);
            Retention.Rules rules = new Retention.Rules(0, 100_000, Map.of());
            long before = index.bytesByCamera().values().stream().mapToLong(Long::longValue).sum();
            List<Retention.Deletion> gone = Retention.enforce(index, rules, NOW, () -> free.get() + before
                    - index.bytesByCamera().values().stream().mapToLong(Long::longValue).sum());
            long freed = gone.stream().mapToLong(d -> d.segment().bytes()).sum();
            assertTrue(freed >= 5_000 && freed < 5_000 + 2_000, freed + " bytes freed by " + gone);
            assertTrue(gone.stream().allMatch(d -> d.segment().camera().equals("old")), "the oldest are old's: " + gone);
            System.out.println("retention: free space 5,000 bytes under its floor: " + gone.size() + " oldest segments deleted, "
                    + freed + " bytes freed");
        }
    }
}
