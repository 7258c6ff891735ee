package io.argus.trainer.cuda;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.NcclClique;
import io.argus.trainer.train.TrainingBackend;
import io.argus.trainer.train.TrainingRun;
import java.util.Arrays;

/**
 * Data-parallel training over several GPUs of this host: one rank per GPU, each a {@link CudaTrainingBackend} opened
 * on its rank's thread with the same initial weights, their gradients summed through one NCCL clique. What {@code
 * argus train --gpus N} runs ({@link TrainingRun#run(TrainingRun.Options, TrainingRun.Listener, TrainingRun.Backends,
 * java.util.function.BooleanSupplier)}).
 */
public final class NcclRanks implements TrainingRun.Backends {
    private final NcclClique clique;
    private final CudaTrainingOptions options;

    /** Ranks on {@code devices} (rank r on devices[r]); the options' own device is ignored. */
    public NcclRanks(int[] devices, CudaTrainingOptions options) {
        this.clique = NcclClique.of(devices);
        this.options = options;
    }

    /** The GPUs 0..count-1. */
    public static int[] firstDevices(int count) {
        int[] d = new int[count];
        Arrays.setAll(d, i -> i);
        return d;
    }

    @Override
    public int ranks() { return clique.size(); }

    @Override
    public TrainingBackend open(int rank, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads,
                                boolean fp16) {
        return new CudaTrainingBackend(spec, initial, miniBatch, options.withDevice(clique.device(rank)),
                clique.rank(rank));
    }

    /** The clique itself (benchmarks open their own backends on it). */
    public NcclClique clique() { return clique; }

    public CudaTrainingOptions options() { return options; }

    @Override
    public void abort() { clique.abort(); }

    @Override
    public void close() { clique.close(); }
}
