package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** Without a GPU: which batch sizes a network plans, and which one a batch runs on. */
@Budget(seconds = 5)
class BatchBucketsTest {
    @Test
    void powersOfTwoThenTheLargestBatch() {
        assertArrayEquals(new int[] {1}, BatchBuckets.of(1));
        assertArrayEquals(new int[] {1, 2, 4, 8, 16, 32, 64}, BatchBuckets.of(64));
        assertArrayEquals(new int[] {1, 2, 4, 8, 12}, BatchBuckets.of(12));
        assertArrayEquals(new int[] {1, 2, 3}, BatchBuckets.of(3));
    }

    @Test
    void aBatchRunsOnTheSmallestBucketHoldingIt() {
        assertEquals(1, BatchBuckets.bucket(1, 64));
        assertEquals(4, BatchBuckets.bucket(3, 64));
        assertEquals(16, BatchBuckets.bucket(9, 64));
        assertEquals(64, BatchBuckets.bucket(33, 64));
        assertEquals(12, BatchBuckets.bucket(9, 12));
        assertEquals(8, BatchBuckets.bucket(8, 12));
        for (int max = 1; max <= 70; max++) {
            int[] buckets = BatchBuckets.of(max);
            for (int n = 1; n <= max; n++) {
                int b = BatchBuckets.bucket(n, max);
                assertEquals(true, java.util.Arrays.stream(buckets).anyMatch(x -> x == b), n + " of " + max);
                assertEquals(true, b >= n && b < 2 * n, n + " of " + max + " on " + b);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> BatchBuckets.bucket(0, 4));
        assertThrows(IllegalArgumentException.class, () -> BatchBuckets.bucket(5, 4));
    }
}
