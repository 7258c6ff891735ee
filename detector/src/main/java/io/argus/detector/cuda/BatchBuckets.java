package io.argus.detector.cuda;

import java.util.ArrayList;
import java.util.List;

/**
 * The batch sizes a network is planned (and its CUDA graph captured) for: powers of two below the largest batch,
 * then the largest batch itself. A batch of n runs on the smallest bucket holding it, its extra images' outputs
 * ignored, so a live batcher that produces every size from 1 to maxBatch never meets an unplanned size: every
 * plan is made when the network opens, none in the hot path. Wasted work is below 2x and only for odd sizes.
 */
final class BatchBuckets {
    private BatchBuckets() {}

    /** 1, 2, 4, ... below maxBatch, then maxBatch. */
    static int[] of(int maxBatch) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        List<Integer> out = new ArrayList<>();
        for (int b = 1; b < maxBatch; b <<= 1) out.add(b);
        out.add(maxBatch);
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The bucket a batch of n runs on. */
    static int bucket(int n, int maxBatch) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
        int b = Integer.highestOneBit(n);
        if (b < n) b <<= 1;
        return Math.min(b, maxBatch);
    }
}
