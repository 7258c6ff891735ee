package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ranks of a data-parallel run read shares of one sequence of batches: together, iteration by iteration, they
 * read exactly the batches one source reads (images bit for bit and boxes), whatever the number of ranks, also when
 * resuming; so a run trains on the same images on 1, 2 or 4 GPUs. The prefetching loader over a share reads the
 * share's batches.
 */
@Budget(seconds = 5)
class DetectionBatchesShareTest {
    @TempDir
    static Path dir;
    static Dataset list;

    static final int W = 32;
    static final int H = 32;
    static final int IMAGES = 3;
    static final long SEED = 5;
    /** Mini-batches per iteration: 4 (1 rank x 4 passes, 2 x 2, 4 x 1). */
    static final int PER_ITERATION = 4;
    static final int ITERATIONS = 3;

    @BeforeAll
    static void dataset() {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 20, 5, 96, 0.25);
        list = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
    }

    static DetectionBatches share(int rank, int ranks, long firstIteration) {
        int passes = PER_ITERATION / ranks;
        return DetectionBatches.share(list, PrefetchingBatchesTest.PLAIN, W, H, IMAGES, SEED, firstIteration * passes,
                rank, ranks, passes);
    }

    @Test
    void theRanksTogetherReadWhatOneSourceReads() {
        for (long first : new long[] {0, 2}) {   // from the start, and resumed after two iterations
            DetectionBatches one = new DetectionBatches(list, PrefetchingBatchesTest.PLAIN, W, H, IMAGES, SEED,
                    first * PER_ITERATION);
            List<TrainingBatch> expected = new ArrayList<>();
            for (int k = 0; k < ITERATIONS * PER_ITERATION; k++) expected.add(one.next());
            for (int ranks : new int[] {1, 2, 4}) {
                TreeMap<Long, TrainingBatch> read = new TreeMap<>();
                for (int r = 0; r < ranks; r++) {
                    DetectionBatches s = share(r, ranks, first);
                    for (int n = 0; n < ITERATIONS * PER_ITERATION / ranks; n++) {
                        long global = s.globalBatch(s.nextBatch());
                        read.put(global, s.next());
                    }
                }
                assertEquals(ITERATIONS * PER_ITERATION, read.size(), ranks + " ranks: no batch read twice");
                int k = 0;
                for (var e : read.entrySet()) {
                    assertEquals(first * PER_ITERATION + k, e.getKey(), ranks + " ranks: the batches in order");
                    assertArrayEquals(expected.get(k).images(), e.getValue().images(), ranks + " ranks, batch " + k);
                    assertEquals(expected.get(k).truths(), e.getValue().truths(), ranks + " ranks, batch " + k);
                    k++;
                }
            }
        }
    }

    @Test
    void aRanksIterationIsItsPassesConsecutiveBatches() {
        DetectionBatches r1 = share(1, 2, 0);   // rank 1 of 2, 2 passes: batches 2, 3 | 6, 7 | 10, 11
        List<Long> globals = new ArrayList<>();
        for (long n = 0; n < 6; n++) globals.add(r1.globalBatch(n));
        assertEquals(List.of(2L, 3L, 6L, 7L, 10L, 11L), globals);
    }

    @Test
    void thePrefetchingLoaderOverAShareReadsTheShare() {
        DetectionBatches sync = share(1, 4, 1);
        List<TrainingBatch> expected = new ArrayList<>();
        for (int n = 0; n < ITERATIONS; n++) expected.add(sync.next());
        try (PrefetchingBatches loader = new PrefetchingBatches(share(1, 4, 1), 2, 2)) {
            for (int n = 0; n < ITERATIONS; n++) {
                TrainingBatch b = loader.next();
                assertArrayEquals(expected.get(n).images(), b.images(), "batch " + n);
                assertEquals(expected.get(n).truths(), b.truths(), "batch " + n);
            }
        }
    }
}
