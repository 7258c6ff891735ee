package io.argus.pipeline.training;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.TrainingBackend;

/**
 * Picks the device a fine-tune runs on, behind the trainer core's {@link TrainingBackend} seam. The CPU backend is
 * the one this build has; {@code auto} takes it, {@code cuda} is refused at start with the reason. A CUDA training
 * backend (FP16 activations, FP32 masters, its own stream) plugs in here without changing anything else.
 */
public final class TrainingBackends {
    private TrainingBackends() {}

    /** Fails with the reason when {@code kind} cannot run here (checked at start, before anything is collected). */
    public static void check(String kind) {
        if ("cuda".equals(kind)) {
            throw new IllegalArgumentException("training.backend: cuda: this build has no CUDA training backend yet "
                    + "(use cpu or auto)");
        }
    }

    /** A backend holding {@code initial}, for mini-batches of {@code miniBatch} images. */
    public static TrainingBackend open(String kind, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads) {
        check(kind);
        return new CpuTrainingBackend(spec, initial, miniBatch, threads, false);
    }
}
