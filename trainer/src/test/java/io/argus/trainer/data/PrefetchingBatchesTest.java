package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefetching loader hands out exactly the synchronous source's batches (images bit for bit, boxes), in order,
 * for any number of threads and depth, from a list or a pack, with or without decoded images kept; a corrupt image
 * fails its batch on the caller's thread naming the file (or shard and sample), at the batch the synchronous source
 * fails; close() leaves no loader thread; the wait it reports is the caller's real wait.
 */
@Budget(seconds = 5)
class PrefetchingBatchesTest {
    @TempDir
    static Path dir;
    static Dataset list;
    static Dataset pack;

    /** yolov4-tiny's. */
    static final Augmentation PLAIN = new Augmentation(0.3f, 0.1f, 1.5f, 1.5f, true, false, 1.5f, false);
    static final Augmentation MOSAIC = new Augmentation(0.2f, 0.1f, 1.5f, 1.5f, true, true);
    static final int W = 64;
    static final int H = 48;
    static final int IMAGES = 5;
    static final long SEED = 11;
    static final long FIRST = 3;   // as a resumed run starts
    static final int BATCHES = 6;

    @BeforeAll
    static void datasets() {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 24, 5, 96, 0.25);
        list = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
        PackWriter.write(list, dir.resolve("pack"), 1 << 20);
        pack = Dataset.open(dir.resolve("pack"), 5);
    }

    /** The synchronous source's batches FIRST..FIRST+BATCHES-1. */
    static List<TrainingBatch> reference(Dataset ds, Augmentation aug) {
        DetectionBatches sync = new DetectionBatches(ds, aug, W, H, IMAGES, SEED, FIRST);
        List<TrainingBatch> out = new ArrayList<>();
        for (int k = 0; k < BATCHES; k++) out.add(sync.next());
        return out;
    }

    static void assertSameBatches(List<TrainingBatch> expected, PrefetchingBatches loader, String what) {
        try (loader) {
            for (int k = 0; k < expected.size(); k++) {
                TrainingBatch b = loader.next();   // compared now: its arrays are reused later
                assertEquals(IMAGES, b.count(), what);
                assertArrayEquals(expected.get(k).images(), b.images(), what + ": images of batch " + (FIRST + k));
                assertEquals(expected.get(k).truths(), b.truths(), what + ": boxes of batch " + (FIRST + k));
            }
        }
    }

    @Test
    void sameBatchesAsTheSynchronousSourceWhateverTheThreadsAndDepth() {
        int[][] threadsDepth = {{1, 1}, {2, 1}, {3, 2}, {8, 3}};
        for (Augmentation aug : List.of(PLAIN, MOSAIC)) {
            List<TrainingBatch> expected = reference(list, aug);
            // The comparison means something: batches differ from each other and hold boxes.
            assertFalse(Arrays.equals(expected.get(0).images(), expected.get(1).images()));
            assertTrue(expected.stream().mapToLong(b -> b.truths().stream().mapToInt(List::size).sum()).sum() > 0);
            for (int[] td : threadsDepth) {
                for (Dataset ds : List.of(list, pack)) {
                    String what = (ds.packed() ? "pack" : "list") + ", mosaic " + aug.mosaic() + ", " + td[0]
                            + " threads, depth " + td[1];
                    assertSameBatches(expected, new PrefetchingBatches(new DetectionBatches(ds, aug, W, H, IMAGES,
                            SEED, FIRST), td[0], td[1]), what);
                }
            }
            // Decoding at every use (nothing kept) changes nothing but time.
            assertSameBatches(expected, new PrefetchingBatches(new DetectionBatches(pack.withDecodedBudget(0), aug, W,
                    H, IMAGES, SEED, FIRST), 2, 2), "pack decoded at every use, mosaic " + aug.mosaic());
        }
        // Another seed gives other batches: the loader does not just replay a fixed sequence.
        try (PrefetchingBatches other = new PrefetchingBatches(new DetectionBatches(list, PLAIN, W, H, IMAGES, SEED + 1,
                FIRST), 2, 2)) {
            assertNotEquals(Arrays.toString(reference(list, PLAIN).get(0).images()),
                    Arrays.toString(other.next().images()));
        }
    }

    /** A list of three good images and {@code bad}, its label beside it. */
    static Dataset withBadImage(String name, byte[] bytes) throws Exception {
        Path d = Files.createDirectories(dir.resolve("bad-" + name.replace('.', '-')));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path good = d.resolve("good" + i + ".png");
            Files.copy(list.sample(i).image(), good);
            Files.writeString(d.resolve("good" + i + ".txt"), "0 0.5 0.5 0.2 0.2\n");
            lines.add(good.getFileName().toString());
        }
        Files.write(d.resolve(name), bytes);
        Files.writeString(d.resolve(name.substring(0, name.lastIndexOf('.')) + ".txt"), "1 0.5 0.5 0.3 0.3\n");
        lines.add(name);
        Files.write(d.resolve("train.txt"), lines);
        return Dataset.fromList(d.resolve("train.txt"), 5);
    }

    /** The synchronous source's first failing batch (and its message), as the prefetching one must report it. */
    static void failsLikeTheSynchronousSource(Dataset ds, String mustName) {
        DetectionBatches sync = new DetectionBatches(ds, PLAIN, W, H, 2, SEED, 0);
        List<TrainingBatch> good = new ArrayList<>();
        IllegalArgumentException expected = null;
        while (expected == null && good.size() < 100) {
            try {
                good.add(sync.next());
            } catch (IllegalArgumentException e) {
                expected = e;
            }
        }
        assertNotNull(expected, "the synchronous source drew the bad image within 100 batches");
        int failing = good.size();
        assertTrue(expected.getMessage().contains(mustName), expected.getMessage());
        assertTrue(expected.getMessage().contains("(training batch " + failing + ", image "), expected.getMessage());
        for (int threads : new int[] {1, 3}) {
            try (PrefetchingBatches loader = new PrefetchingBatches(new DetectionBatches(ds, PLAIN, W, H, 2, SEED, 0),
                    threads, 3)) {
                for (TrainingBatch g : good) assertArrayEquals(g.images(), loader.next().images());
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, loader::next);
                assertEquals(expected.getMessage(), e.getMessage(), threads + " threads");
                assertTrue(e.getCause() instanceof IllegalArgumentException, "the loader thread's failure is the cause");
            }
        }
    }

    @Test
    void aCorruptImageFailsItsBatchNamingTheFile() throws Exception {
        byte[] png = Files.readAllBytes(list.sample(0).image());
        byte[] noise = new byte[600];
        new java.util.Random(3).nextBytes(noise);
        Dataset garbage = withBadImage("noise.png", noise);
        Dataset truncated = withBadImage("cut.png", Arrays.copyOf(png, png.length / 2));
        Path badFile = garbage.sample(3).image();
        failsLikeTheSynchronousSource(garbage, badFile + ": not a readable image (expected JPEG, PNG or BMP)");
        failsLikeTheSynchronousSource(truncated, truncated.sample(3).image() + ": cannot decode image");

        // Packed, the message names the shard, the sample and the image as listed.
        Path packed = dir.resolve("bad-pack");
        PackWriter.write(garbage, packed, 1 << 20);
        failsLikeTheSynchronousSource(Dataset.open(packed, 5), packed.resolve("shard-00000.pack")
                + ": sample 3 (noise.png, record at byte ");
    }

    static List<Thread> alive(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).toList();
    }

    @Test
    void closeEndsEveryLoaderThread() {
        // Busy: closed while its threads are making the first batches (160x160 mosaics: tens of ms each).
        PrefetchingBatches busy = new PrefetchingBatches(new DetectionBatches(list, MOSAIC, 160, 160, 8, SEED, 0), 4, 2);
        assertEquals(4, alive(busy.threadPrefix()).size());
        long t0 = System.nanoTime();
        busy.close();
        assertEquals(List.of(), alive(busy.threadPrefix()), "no loader thread left after close()");
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "close() is prompt");
        assertEquals("the training-data loader is closed",
                assertThrows(IllegalStateException.class, busy::next).getMessage());
        busy.close(); // twice is harmless

        // Idle: its window full, every thread waiting.
        PrefetchingBatches idle = new PrefetchingBatches(new DetectionBatches(list, PLAIN, W, H, 2, SEED, 0), 3, 1);
        idle.next();
        idle.next();
        assertEquals(3, alive(idle.threadPrefix()).size());
        idle.close();
        assertEquals(List.of(), alive(idle.threadPrefix()));
    }

    @Test
    void waitIsTheCallersRealWait() throws Exception {
        // A caller that does nothing but ask waits for the whole making of every batch: its wait is its whole time.
        try (PrefetchingBatches slowLoader = new PrefetchingBatches(new DetectionBatches(list, MOSAIC, 160, 160, 8,
                SEED, 0), 1, 1)) {
            long t0 = System.nanoTime();
            for (int k = 0; k < 4; k++) slowLoader.next();
            long elapsed = System.nanoTime() - t0;
            assertEquals(4, slowLoader.handedOut());
            assertTrue(slowLoader.waitNanos() > 0.9 * elapsed && slowLoader.waitNanos() <= elapsed,
                    "waited " + slowLoader.waitNanos() + " ns of " + elapsed);
        }
        // A caller slower than the loader (100 ms per batch, the batches take a few ms) finds every batch after the
        // first ready: it waits for the first only.
        try (PrefetchingBatches fastLoader = new PrefetchingBatches(new DetectionBatches(list, PLAIN, 32, 32, 2, SEED,
                0), 2, 2)) {
            fastLoader.next();
            long first = fastLoader.waitNanos();
            for (int k = 0; k < 9; k++) {
                Pace.holdMillis(100, "the caller's work on one batch, longer than the loader's");
                fastLoader.next();
            }
            long later = fastLoader.waitNanos() - first;
            assertEquals(10, fastLoader.handedOut());
            assertTrue(later < 90_000_000L, "waited " + later / 1e6 + " ms over 9 batches made during 900 ms of work");
        }
    }
}
