package io.argus.trainer.train;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.io.AtomicFile;
import io.argus.trainer.data.Augmentation;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.DetectionBatches;
import io.argus.trainer.data.PrefetchingBatches;
import io.argus.trainer.precision.LossScaler;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * A whole training job as {@code argus train} runs it: cfg + .data (+ optional starting weights) to
 * {@code out/<cfg name>_last.weights}, with a {@link Checkpoint} (weights, momentum, state) every
 * {@code checkpointEvery} iterations, at the end, and when asked to suspend; {@code resume} continues from it exactly
 * as if the run had never stopped.
 */
public final class TrainingRun {
    /**
     * @param weights         starting weights (iteration 0), or null for Darknet's initialisation from {@code seed}
     * @param maxBatches      iterations to run, 0 for the cfg's max_batches
     * @param checkpointEvery iterations between checkpoints
     * @param threads         worker threads (0: one per processor)
     * @param fp16            emulate mixed precision (FP16 activations, gradients and working weights)
     * @param loaderThreads   threads making batches ahead (0: {@link PrefetchingBatches#defaultThreads})
     * @param loaderDepth     batches made ahead (0: {@link PrefetchingBatches#DEFAULT_DEPTH})
     */
    public record Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery,
                          boolean resume, long seed, int threads, boolean fp16, int loaderThreads, int loaderDepth) {
        /** With the loader's defaults. */
        public Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery, boolean resume,
                       long seed, int threads, boolean fp16) {
            this(cfg, weights, data, maxBatches, out, checkpointEvery, resume, seed, threads, fp16, 0, 0);
        }
    }

    /**
     * The outcome: final weights file, iterations done, last loss scale, skipped steps; {@code suspended}: stopped
     * before max_batches because a suspend was asked for (the checkpoint is written); seconds the iterations of this
     * run took, and of those, the seconds the training thread waited for data.
     */
    public record Result(Path weights, int iterations, float lossScale, long skipped, boolean suspended, double seconds,
                         double dataWaitSeconds) {}

    /** Progress callbacks, on the training thread. */
    public interface Listener {
        default void onStart(String description) {}

        void onIteration(IterationStats stats);

        default void onCheckpoint(Path file, int iteration) {}

        /** Something the user should know once, e.g. a resume with zero momentum from an older checkpoint. */
        default void onNotice(String message) {
            System.err.println(message);
        }
    }

    /** Opens the backend a run trains on (the CPU by default; {@code argus train --backend cuda} passes the GPU's). */
    @FunctionalInterface
    public interface BackendFactory {
        TrainingBackend open(NetworkSpec spec, ModelWeights initial, int miniBatch, int threads, boolean fp16);
    }

    /** The CPU backend. */
    public static final BackendFactory CPU = CpuTrainingBackend::new;

    private TrainingRun() {}

    public static Path lastWeights(Path out, NetworkSpec spec) {
        return Checkpoint.weightsFile(out, spec);
    }

    public static Result run(Options o, Listener listener) {
        return run(o, listener, CPU);
    }

    public static Result run(Options o, Listener listener, BackendFactory backends) {
        return run(o, listener, backends, () -> false);
    }

    /**
     * Runs the job; {@code suspend} is asked before every iteration: once true, the run writes its checkpoint and
     * returns ({@link Result#suspended}), so a signal handler stops it between iterations, never inside one.
     */
    public static Result run(Options o, Listener listener, BackendFactory backends, BooleanSupplier suspend) {
        NetworkSpec spec = NetworkSpec.load(o.cfg());
        DataFile data = DataFile.read(o.data());
        if (data.classes() != spec.classes()) {
            throw new IllegalArgumentException(o.data() + ": classes=" + data.classes() + ", but the cfg " + o.cfg()
                    + " has classes=" + spec.classes() + " in its [yolo] layers");
        }
        Dataset train = Dataset.open(data.requireTrain(), data.classes());
        TrainingPlan plan = TrainingPlan.of(spec, o.maxBatches());
        LossScaler scaler = LossScaler.of(spec.net().training());

        ModelWeights initial;
        int completed = 0;
        Checkpoint.Resumed resumed = null;
        Path last = lastWeights(o.out(), spec);
        AtomicFile.removeLeftovers(o.out()); // a checkpoint a kill cut short: never read, only in the way
        if (o.resume()) {
            resumed = Checkpoint.read(o.out(), spec, plan.batch(), o.seed());
            initial = resumed.weights();
            completed = resumed.iteration();
            if (resumed.scaler() != null) resumed.scaler().restoreInto(scaler);
            if (resumed.notice() != null) listener.onNotice(resumed.notice());
        } else if (o.weights() != null) {
            initial = WeightsFile.read(o.weights(), spec);
        } else {
            initial = WeightsInit.darknet(spec, o.seed());
        }
        int threads = o.threads() > 0 ? o.threads() : Runtime.getRuntime().availableProcessors();
        try (TrainingBackend backend = backends.open(spec, initial, plan.miniBatch(), threads, o.fp16());
             PrefetchingBatches batches = loader(o, backend, threads, new DetectionBatches(train, Augmentation.of(spec),
                     spec.net().width(), spec.net().height(), plan.miniBatch(), o.seed(),
                     (long) completed * plan.subdivisions()))) {
            if (resumed != null && resumed.optimizer() != null) backend.restoreOptimizerState(resumed.optimizer());
            Trainer trainer = new Trainer(backend, batches, plan, scaler, completed);
            listener.onStart(String.format("%s on %s: %d training images%s, batch %d (subdivisions %d), iterations "
                            + "%d..%d; loader: %d thread%s, %d batches ahead",
                    spec.name(), backend.name(), train.size(), train.packed() ? " (packed)" : "", plan.batch(),
                    plan.subdivisions(), completed + 1, plan.maxBatches(), batches.threads(), batches.threads() == 1 ? "" : "s",
                    batches.depth()));
            int checkpointed = o.resume() ? completed : -1;
            boolean suspended = false;
            while (trainer.completed() < plan.maxBatches()) {
                if (suspend.getAsBoolean()) {
                    suspended = true;
                    break;
                }
                IterationStats stats = trainer.iterate();
                listener.onIteration(stats);
                if (stats.iteration() % o.checkpointEvery() == 0 && stats.iteration() < plan.maxBatches()) {
                    Checkpoint.write(o.out(), spec, trainer, o.seed());
                    checkpointed = stats.iteration();
                    listener.onCheckpoint(last, stats.iteration());
                }
            }
            if (checkpointed != trainer.completed()) {
                Checkpoint.write(o.out(), spec, trainer, o.seed());
                listener.onCheckpoint(last, trainer.completed());
            }
            return new Result(last, trainer.completed(), scaler.scale(), scaler.skipped(), suspended, trainer.seconds(),
                    trainer.dataWaitSeconds());
        }
    }

    /**
     * The batch loader: by default one thread per processor the backend leaves free (the CPU backend computes on
     * {@code threads}; a GPU backend's feeding is one thread), at least one.
     */
    private static PrefetchingBatches loader(Options o, TrainingBackend backend, int threads, DetectionBatches batches) {
        int training = "cpu".equals(backend.kind()) ? threads : 1;
        int loaderThreads = o.loaderThreads() > 0 ? o.loaderThreads() : PrefetchingBatches.defaultThreads(training);
        int depth = o.loaderDepth() > 0 ? o.loaderDepth() : PrefetchingBatches.DEFAULT_DEPTH;
        return new PrefetchingBatches(batches, loaderThreads, depth);
    }
}
