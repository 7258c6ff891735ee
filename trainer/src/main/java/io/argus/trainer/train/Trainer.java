package io.argus.trainer.train;

import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.precision.LossScaler;

/**
 * Darknet's training loop on a {@link TrainingBackend}: per iteration, {@code subdivisions} passes of
 * {@code batch / subdivisions} images accumulate gradients at the current loss scale; an overflow skips the step
 * (the scaler halves the scale), otherwise SGD runs at the scheduled learning rate and the scaler sees the largest
 * weight update. Iterations count from 1, as Darknet's batch numbers; an iteration is counted whether or not its
 * step was applied.
 *
 * <p>On one rank of a data-parallel run ({@link TrainingBackend#ranks} > 1) the trainer makes only its share of the
 * passes ({@link TrainingPlan#passesPerRank}); the backend's last pass sums the gradients over the ranks, so the
 * overflow decision, the step (SGD over the whole {@code batch}) and the loss scaler are the same on every rank.
 */
public final class Trainer {
    /** Called after every iteration, on the training thread. */
    @FunctionalInterface
    public interface Listener {
        void onIteration(IterationStats stats);
    }

    private final TrainingBackend backend;
    private final BatchSource data;
    private final TrainingPlan plan;
    private final LossScaler scaler;
    private final int passes;
    /** The next pass's batch, taken from the source while the pass before it computed (a GPU stages it), or null. */
    private TrainingBatch ahead;
    /** The pass of the iteration under way. */
    private int pass;
    private int iteration;
    private double secondsPerImage = Double.NaN;
    private double waitPerImage = Double.NaN;
    private double seconds;
    private double dataWaitSeconds;

    /** {@code completed}: iterations already done (resume), 0 for a fresh start. */
    public Trainer(TrainingBackend backend, BatchSource data, TrainingPlan plan, LossScaler scaler, int completed) {
        if (plan.miniBatch() > backend.maxBatch()) {
            throw new IllegalArgumentException("mini-batch of " + plan.miniBatch() + " images, the backend holds "
                    + backend.maxBatch());
        }
        this.backend = backend;
        this.data = data;
        this.plan = plan;
        this.scaler = scaler;
        this.passes = plan.passesPerRank(backend.ranks());
        this.iteration = completed;
    }

    /**
     * The next pass's batch, taken now (while the current pass computes) and kept for that pass; none after the run's
     * last pass. The source may reuse the current batch's arrays from here on: the backend has copied them by then.
     */
    private TrainingBatch takeAhead() {
        if (ahead != null) return null;
        boolean lastPassOfRun = iteration + 1 >= plan.maxBatches() && pass == passes - 1;
        if (lastPassOfRun) return null;
        ahead = data.next();
        return ahead;
    }

    /** Passes per iteration on this trainer's backend: subdivisions, or this rank's share of them. */
    public int passes() { return passes; }

    public int completed() { return iteration; }

    /** Images seen so far, as Darknet's {@code seen}. */
    public long seen() { return (long) iteration * plan.batch(); }

    public LossScaler scaler() { return scaler; }

    /** Seconds this trainer has spent in iterations. */
    public double seconds() { return seconds; }

    /** Of {@link #seconds}, those spent waiting for data. */
    public double dataWaitSeconds() { return dataWaitSeconds; }

    public TrainingBackend backend() { return backend; }

    /** Runs until max_batches iterations are done. */
    public void run(Listener listener) {
        while (iteration < plan.maxBatches()) listener.onIteration(iterate());
    }

    /** One iteration: the passes, then the step or its skip. */
    public IterationStats iterate() {
        long start = System.nanoTime();
        long waitedBefore = data.waitNanos();
        int number = iteration + 1;
        float scale = scaler.scale();
        LossParts loss = LossParts.ZERO;
        int images = 0;
        for (int s = 0; s < passes; s++) {
            pass = s;
            TrainingBatch batch = ahead != null ? ahead : data.next();
            ahead = null;
            loss = loss.plus(backend.forwardBackward(batch, scale, s == passes - 1, this::takeAhead));
            images += batch.count();
        }
        float rate = plan.learningRate().at(number);
        boolean applied = scaler.accept(backend.gradientsOverflowed());
        if (applied) {
            boolean burnIn = plan.learningRate().inBurnIn(number);
            float ema = plan.emaAlpha() > 0 && !burnIn ? plan.emaAlpha() : 0f;
            float largest = backend.step(new SgdStep(rate, plan.momentum(), plan.decay(), plan.batch(), ema), scale);
            scaler.followUpdate(largest, burnIn);
        } else {
            backend.discardGradients();
        }
        iteration = number;
        double took = (System.nanoTime() - start) / 1e9;
        double waited = (data.waitNanos() - waitedBefore) / 1e9;
        seconds += took;
        dataWaitSeconds += waited;
        double perImage = took / Math.max(1, images);
        double waitedPerImage = waited / Math.max(1, images);
        secondsPerImage = Double.isNaN(secondsPerImage) ? perImage : 0.9 * secondsPerImage + 0.1 * perImage;
        waitPerImage = Double.isNaN(waitPerImage) ? waitedPerImage : 0.9 * waitPerImage + 0.1 * waitedPerImage;
        double eta = (plan.maxBatches() - iteration) * (double) passes * plan.miniBatch() * secondsPerImage;
        return new IterationStats(number, plan.maxBatches(), loss.dividedBy(Math.max(1, images)), scale, applied,
                scaler.skipped(), rate, 1 / secondsPerImage, eta, waited,
                secondsPerImage > 0 ? waitPerImage / secondsPerImage : 0);
    }
}
