package io.argus.pipeline.training;

import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.data.Augmentation;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.DetectionBatches;
import io.argus.trainer.data.InputSizes;
import io.argus.trainer.data.PrefetchingBatches;
import io.argus.trainer.eval.Evaluator;
import io.argus.trainer.optim.LearningRate;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.MultiScale;
import io.argus.trainer.train.Trainer;
import io.argus.trainer.train.TrainingBackend;
import io.argus.trainer.train.TrainingKeys;
import io.argus.trainer.train.TrainingPlan;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One fine-tune, start to decision, on the calling thread (the trainer's, at low priority): from the serving
 * version's weights, {@code iterations} SGD updates at a constant learning rate on the labelled training frames
 * (Darknet's augmentation of the cfg), with a {@link ThrottledBatches bounded share} of the wall time, on the CPU or
 * on the GPU (mixed precision with the cfg's dynamic loss scaling, on a lowest-priority stream); then both the
 * serving weights and the candidate are scored on the held-out frames with the deployed inference path
 * ({@link Evaluator}). The candidate's weights are written to {@code candidate}.
 */
final class FineTune {
    /** What a run learns from and where it writes. */
    record Inputs(Path cfg, int width, int height, List<String> names, Path startWeights, Path trainList,
                  Path valList, Path candidate, long seed) {}

    /** Progress, on the training thread. */
    interface Listener {
        /** The backend is open: {@code backend.kind()} and {@code precision()} say where and how it trains. */
        void onStart(TrainingBackend backend, int trainImages, int valImages);

        void onIteration(IterationStats stats);
    }

    /** The outcome: held-out scores of the serving weights and the candidate, objects they were scored on. */
    record Result(Evaluator.Result before, Evaluator.Result after, int iterations, float lossScale, long skipped,
                  double busySeconds, double sleptSeconds) {}

    private FineTune() {}

    /** {@code device}: what {@code training.backend} resolved to when the trainer started. */
    static Result run(TrainingConfig config, TrainingBackends.Choice device, Inputs in, Listener listener,
                      BooleanSupplier cancelled) {
        NetworkSpec spec = NetworkSpec.load(in.cfg(), in.width(), in.height());
        TrainingKeys.check(in.cfg());
        ModelWeights start = WeightsFile.read(in.startWeights(), spec);
        Dataset train = Dataset.fromList(in.trainList(), spec.classes());
        Dataset val = Dataset.fromList(in.valList(), spec.classes());
        NetSettings.Training t = spec.net().training();
        int iterations = config.iterations();
        // Fine-tuning starts from trained weights: no burn-in, one small constant rate.
        LearningRate rate = new LearningRate(config.learningRate(), 0, 1, "constant", new int[0], new float[0], 1, 0,
                iterations);
        TrainingPlan plan = new TrainingPlan(config.batch(), config.subdivisions(), iterations, t.momentum(), t.decay(),
                rate, 0f);
        LossScaler scaler = LossScaler.of(t);
        ModelWeights trained;
        int done;
        // One loader thread, two batches ahead: a fine-tune's batches are small, and live detection keeps the cores.
        // Multi-scale only when configured: the sizes, as argus train's, from the seed and the iteration.
        MultiScale multiScale = MultiScale.of(spec, config.multiScale(), in.seed(), iterations);
        InputSizes sizes = multiScale != null ? multiScale : InputSizes.fixed(spec.net().width(), spec.net().height());
        ThrottledBatches batches = new ThrottledBatches(new PrefetchingBatches(DetectionBatches.share(train,
                Augmentation.of(spec), sizes, plan.miniBatch(), in.seed(), 0, 0, 1, plan.subdivisions()), 1, 2),
                config.cpuShare(), cancelled);
        // batches first: closed last, and closed (its loader thread ended) when the backend cannot open
        try (batches;
             TrainingBackend backend = TrainingBackends.open(device, config.cuda(), spec, start, plan.miniBatch(),
                     config.threads(), false)) {
            if (multiScale != null) {
                backend.prepareInputSizes(multiScale.sizes().stream()
                        .map(z -> spec.withInput(z.width(), z.height())).toList());
            }
            listener.onStart(backend, train.size(), val.size());
            Trainer trainer = new Trainer(backend, batches, plan, scaler, 0);
            trainer.run(listener::onIteration);
            done = trainer.completed();
            trained = backend.weights(trainer.seen());
        }
        WeightsFile.write(in.candidate(), spec, trained);
        int batch = Math.min(8, Math.max(1, val.size()));
        Evaluator.Result before = Evaluator.evaluate(new Model(spec, start, in.names()), val, batch);
        Evaluator.Result after = Evaluator.evaluate(new Model(spec, trained, in.names()), val, batch);
        return new Result(before, after, done, scaler.scale(), scaler.skipped(), batches.busyNanos() / 1e9,
                batches.sleptNanos() / 1e9);
    }
}
