package io.argus.trainer.train;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.parallel.HostAllReduce;

/**
 * Data-parallel training with CPU backends as the ranks, threads of this process summing their gradients through
 * {@link HostAllReduce}: the stand-in for several GPUs (tests, and `argus train --ranks N` on a machine without
 * them). Slower than one CPU backend with all the threads; its point is that the data-parallel run, with its data
 * shares, reductions, checkpoints and resumes, is the same code a multi-GPU run is. Beside the CPU backend, as the
 * GPUs' {@code cuda.NcclRanks} is beside theirs.
 */
public final class HostRanks implements TrainingRun.Backends {
    private final HostAllReduce allReduce;

    public HostRanks(int ranks) {
        this.allReduce = new HostAllReduce(ranks);
    }

    @Override
    public int ranks() { return allReduce.size(); }

    @Override
    public TrainingBackend open(int rank, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads,
                                boolean fp16) {
        return new CpuTrainingBackend(spec, initial, miniBatch, threads, fp16, allReduce.member(rank));
    }

    @Override
    public void abort() { allReduce.abort(); }
}
