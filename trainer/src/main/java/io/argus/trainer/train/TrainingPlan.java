package io.argus.trainer.train;

import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.optim.LearningRate;

/**
 * The schedule from a cfg's [net]: {@code batch} images per update in {@code subdivisions} passes, max_batches
 * updates, SGD momentum and decay, the learning-rate schedule, the EMA factor (0: off).
 */
public record TrainingPlan(int batch, int subdivisions, int maxBatches, float momentum, float decay,
                           LearningRate learningRate, float emaAlpha) {
    public TrainingPlan {
        if (maxBatches <= 0) {
            throw new IllegalArgumentException("max_batches: expected a positive number of updates, found " + maxBatches
                    + " (set max_batches in [net] or pass --max-batches)");
        }
        if (batch % subdivisions != 0) {
            throw new IllegalArgumentException("subdivisions=" + subdivisions + " does not divide batch=" + batch);
        }
    }

    /** The plan of a cfg, with max_batches overridden when {@code maxBatches} > 0. */
    public static TrainingPlan of(NetworkSpec spec, int maxBatches) {
        NetSettings net = spec.net();
        NetSettings.Training t = net.training();
        int max = maxBatches > 0 ? maxBatches : t.maxBatches();
        return new TrainingPlan(net.batch(), net.subdivisions(), max, t.momentum(), t.decay(), LearningRate.of(t, max),
                t.emaAlpha());
    }

    /** The same plan with {@code iterations} of burn-in instead of the cfg's. */
    public TrainingPlan withBurnIn(int iterations) {
        return new TrainingPlan(batch, subdivisions, maxBatches, momentum, decay, learningRate.withBurnIn(iterations),
                emaAlpha);
    }

    /** The same plan from base learning rate {@code rate} instead of the cfg's. */
    public TrainingPlan withLearningRate(float rate) {
        return new TrainingPlan(batch, subdivisions, maxBatches, momentum, decay, learningRate.withBase(rate),
                emaAlpha);
    }

    /** Images per pass. */
    public int miniBatch() { return batch / subdivisions; }

    /**
     * Passes each of {@code ranks} ranks of a data-parallel run makes per iteration: the iteration's
     * {@code subdivisions} mini-batches of {@link #miniBatch} images shared out evenly, so the run's update is the
     * update of {@code batch} images, whatever the number of ranks (and a run can resume on another number of GPUs).
     */
    public int passesPerRank(int ranks) {
        if (ranks <= 0) throw new IllegalArgumentException("ranks: expected > 0, found " + ranks);
        if (subdivisions % ranks != 0) {
            throw new IllegalArgumentException("batch=" + batch + " and subdivisions=" + subdivisions + " make "
                    + subdivisions + " mini-batch" + (subdivisions == 1 ? "" : "es") + " of " + miniBatch()
                    + " images per iteration, which do not share out over " + ranks + " GPUs: set subdivisions (and"
                    + " batch) so that subdivisions is a multiple of " + ranks + ", e.g. batch=" + miniBatch() * ranks
                    + " subdivisions=" + ranks + " for " + miniBatch() + " images per GPU and pass");
        }
        return subdivisions / ranks;
    }
}
