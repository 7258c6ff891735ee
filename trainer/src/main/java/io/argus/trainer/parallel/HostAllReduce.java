package io.argus.trainer.parallel;

import java.nio.FloatBuffer;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * The CPU's all-reduce for ranks that are threads of this process: the stand-in for NCCL that lets data-parallel
 * training run, and be checked, without GPUs. Each rank hands in its list of buffers; every rank gets back, in place,
 * their element-wise sum over the ranks, added in rank order (rank 0 + rank 1 + ...), the same bits on every rank.
 * {@link #abort} releases ranks waiting for one that failed.
 */
public final class HostAllReduce {
    private final int size;
    private final CyclicBarrier barrier;
    private final Object[] handedIn;

    public HostAllReduce(int size) {
        if (size <= 0) throw new IllegalArgumentException("ranks: expected > 0, found " + size);
        this.size = size;
        this.barrier = new CyclicBarrier(size);
        this.handedIn = new Object[size];
    }

    public int size() { return size; }

    public Member member(int rank) {
        if (rank < 0 || rank >= size) throw new IllegalArgumentException("rank " + rank + " of " + size);
        return new Member(rank);
    }

    /** Breaks the barrier: ranks waiting in {@link Member#sum} fail at once instead of waiting forever. */
    public void abort() { barrier.reset(); }

    /** What one rank calls. */
    public final class Member {
        private final int rank;

        private Member(int rank) { this.rank = rank; }

        public int rank() { return rank; }

        public int size() { return size; }

        /** Every buffer becomes the sum of the same-placed buffers of all ranks (same capacities on every rank). */
        public void sum(List<FloatBuffer> buffers) {
            if (size == 1) return;
            handedIn[rank] = buffers;
            await();
            float[][] sums = new float[buffers.size()][];
            for (int a = 0; a < buffers.size(); a++) {
                FloatBuffer first = buffers(0).get(a);
                float[] total = new float[first.capacity()];
                first.get(0, total);
                for (int r = 1; r < size; r++) {
                    FloatBuffer add = buffers(r).get(a);
                    if (add.capacity() != total.length) {
                        throw new IllegalStateException("rank " + r + " handed in " + add.capacity() + " values for "
                                + "tensor " + a + ", rank 0 " + total.length);
                    }
                    for (int i = 0; i < total.length; i++) total[i] += add.get(i);
                }
                sums[a] = total;
            }
            await();   // every rank has read every other's buffers: now each may overwrite its own
            for (int a = 0; a < sums.length; a++) buffers.get(a).put(0, sums[a]);
        }

        @SuppressWarnings("unchecked")
        private List<FloatBuffer> buffers(int r) { return (List<FloatBuffer>) handedIn[r]; }

        private void await() {
            try {
                barrier.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("rank " + rank + " interrupted in the gradient all-reduce", e);
            } catch (BrokenBarrierException e) {
                throw new IllegalStateException("rank " + rank + ": the all-reduce was aborted (another rank failed)",
                        e);
            }
        }
    }
}
