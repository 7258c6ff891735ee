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
import io.argus.trainer.data.InputSizes;
import io.argus.trainer.data.PrefetchingBatches;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.parallel.RankThreads;
import io.argus.trainer.precision.LossScaler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A whole training job as {@code argus train} runs it: cfg + .data (+ optional starting weights) to
 * {@code out/<cfg name>_last.weights}, with a {@link Checkpoint} generation (momentum, weights, state, then the pointer)
 * every {@code checkpointEvery} iterations, at the end, and when asked to suspend; {@code resume} continues from the
 * newest complete one exactly as if the run had never stopped, whenever it was killed.
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
     * @param burnIn          iterations of burn-in, or {@link #AUTO_BURN_IN}: none when starting from {@code weights}
     *                        (trained weights need their full rate from the first update; a ramp from ~0 over the
     *                        cfg's burn_in would leave a short fine-tune unchanged), the cfg's burn_in otherwise
     *                        (random weights need the ramp)
     * @param learningRate    the schedule's base rate instead of the cfg's {@code learning_rate}; 0: the cfg's. A cfg's
     *                        rate is made for training from scratch: fine-tuning trained weights usually wants a
     *                        smaller one (the checkpoint does not record it: a resume passes it again)
     * @param multiScale      multi-scale training ({@link MultiScale}): off, on, or as the cfg's [yolo] random says;
     *                        the sizes come from the seed and the iteration, so a resume passes the same mode again
     */
    public record Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery,
                          boolean resume, long seed, int threads, boolean fp16, int loaderThreads, int loaderDepth,
                          int burnIn, float learningRate, MultiScale.Mode multiScale) {
        public Options {
            java.util.Objects.requireNonNull(multiScale, "multiScale");
            if (burnIn < AUTO_BURN_IN) {
                throw new IllegalArgumentException("--burn-in: expected auto or >= 0 iterations, found " + burnIn);
            }
            if (!(learningRate >= 0) || !Float.isFinite(learningRate)) {
                throw new IllegalArgumentException("--learning-rate: expected a rate > 0 (0: the cfg's), found "
                        + learningRate);
            }
        }

        /** At the cfg's input size only (multi-scale off: what a caller that does not ask for it gets). */
        public Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery, boolean resume,
                       long seed, int threads, boolean fp16, int loaderThreads, int loaderDepth, int burnIn,
                       float learningRate) {
            this(cfg, weights, data, maxBatches, out, checkpointEvery, resume, seed, threads, fp16, loaderThreads,
                    loaderDepth, burnIn, learningRate, MultiScale.Mode.OFF);
        }

        /** With the cfg's learning rate. */
        public Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery, boolean resume,
                       long seed, int threads, boolean fp16, int loaderThreads, int loaderDepth, int burnIn) {
            this(cfg, weights, data, maxBatches, out, checkpointEvery, resume, seed, threads, fp16, loaderThreads,
                    loaderDepth, burnIn, 0f);
        }

        /** With automatic burn-in. */
        public Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery, boolean resume,
                       long seed, int threads, boolean fp16, int loaderThreads, int loaderDepth) {
            this(cfg, weights, data, maxBatches, out, checkpointEvery, resume, seed, threads, fp16, loaderThreads,
                    loaderDepth, AUTO_BURN_IN);
        }

        /** With the loader's defaults and automatic burn-in. */
        public Options(Path cfg, Path weights, Path data, int maxBatches, Path out, int checkpointEvery, boolean resume,
                       long seed, int threads, boolean fp16) {
            this(cfg, weights, data, maxBatches, out, checkpointEvery, resume, seed, threads, fp16, 0, 0);
        }

        /**
         * The burn-in this run uses: the option's, else the checkpoint's it resumes ({@code kept}, null: none kept),
         * else none from given weights, else the cfg's.
         */
        public int burnIn(int cfgBurnIn, Checkpoint.Schedule kept) {
            if (burnIn != AUTO_BURN_IN) return burnIn;
            if (kept != null) return kept.burnIn();
            return weights != null && !resume ? 0 : cfgBurnIn;
        }

        /** The base learning rate this run uses: the option's, else the checkpoint's it resumes, else 0 (the cfg's). */
        public float learningRate(Checkpoint.Schedule kept) {
            return learningRate > 0 ? learningRate : kept != null ? kept.learningRate() : 0f;
        }
    }

    /** {@link Options#burnIn}: decided by whether the run starts from given weights. */
    public static final int AUTO_BURN_IN = -1;

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

        /**
         * Multi-scale training: iteration {@code iteration} (counted from 1, as {@link IterationStats#iteration}) and
         * the ones after it, up to the next call, train at a {@code width} x {@code height} input. Called at the
         * first iteration of a run and every {@link MultiScale#ITERATIONS_PER_SIZE} iterations.
         */
        default void onInputSize(int iteration, int width, int height) {}

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

    /**
     * The backends of a run: one ({@link #alone}), or one per rank of a data-parallel run, each opened on its rank's
     * own thread and summing its gradients with the others' (NCCL between GPUs; the host between CPU ranks).
     */
    public interface Backends extends AutoCloseable {
        int ranks();

        /** Rank {@code rank}'s backend (called on that rank's thread). */
        TrainingBackend open(int rank, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads,
                             boolean fp16);

        /** A rank failed: release the ranks waiting for it in a collective. */
        default void abort() {}

        /** After every rank's backend is closed. */
        @Override
        default void close() {}
    }

    /** A run of one backend, on the caller's thread. */
    public static Backends alone(BackendFactory factory) {
        return new Backends() {
            @Override
            public int ranks() { return 1; }

            @Override
            public TrainingBackend open(int rank, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads,
                                        boolean fp16) {
                return factory.open(spec, initial, miniBatch, threads, fp16);
            }
        };
    }

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
        return run(o, listener, alone(backends), suspend);
    }

    /**
     * Runs the job on {@code backends.ranks()} ranks: every rank trains on its share of each iteration's mini-batches
     * ({@link DetectionBatches#share}), their gradients are summed in each iteration's last pass, and all ranks step
     * alike, so the result is that of one backend making all the passes (up to the order of additions and each rank's
     * batch-norm statistics). Rank 0 reports and writes the checkpoints (every rank holds the same weights, momentum
     * and loss scale; rank 0's rolling batch-norm statistics are saved, as PyTorch's DDP keeps rank 0's). A checkpoint
     * resumes on any number of ranks that shares out the iteration's mini-batches.
     */
    public static Result run(Options o, Listener listener, Backends backends, BooleanSupplier suspend) {
        NetworkSpec spec = NetworkSpec.load(o.cfg());
        TrainingKeys.check(o.cfg());
        DataFile data = DataFile.read(o.data());
        if (data.classes() != spec.classes()) {
            throw new IllegalArgumentException(o.data() + ": classes=" + data.classes() + ", but the cfg " + o.cfg()
                    + " has classes=" + spec.classes() + " in its [yolo] layers");
        }
        Dataset train = Dataset.open(data.requireTrain(), data.classes());
        TrainingPlan cfgPlan = TrainingPlan.of(spec, o.maxBatches());
        LossScaler scaler = LossScaler.of(spec.net().training());

        ModelWeights initial;
        int completed = 0;
        Checkpoint.Resumed resumed = null;
        Path last = lastWeights(o.out(), spec);
        AtomicFile.removeLeftovers(o.out()); // a checkpoint a kill cut short: never read, only in the way
        if (o.resume()) {
            resumed = Checkpoint.read(o.out(), spec, cfgPlan.batch(), o.seed());
            initial = resumed.weights();
            completed = resumed.iteration();
            if (resumed.scaler() != null) resumed.scaler().restoreInto(scaler);
            resumed.notices().forEach(listener::onNotice);
        } else {
            initial = o.weights() != null ? WeightsFile.read(o.weights(), spec) : WeightsInit.darknet(spec, o.seed());
            // a run that starts afresh: an earlier run's generations must never be taken for this run's at a resume
            int removed = Checkpoint.clear(o.out(), spec);
            if (removed >= 0) {
                listener.onNotice("starting afresh (no --resume): removed the checkpoint of iteration " + removed
                        + " an earlier run left in " + o.out());
            }
        }
        // a resumed run continues on the schedule it started with, unless told otherwise
        Checkpoint.Schedule kept = resumed != null ? resumed.schedule() : null;
        TrainingPlan burnedIn = cfgPlan.withBurnIn(o.burnIn(cfgPlan.learningRate().burnIn(), kept));
        float rate = o.learningRate(kept);
        TrainingPlan plan = rate > 0 ? burnedIn.withLearningRate(rate) : burnedIn;
        Checkpoint.Schedule schedule = new Checkpoint.Schedule(plan.learningRate().burnIn(), plan.learningRate().base());
        int threads = o.threads() > 0 ? o.threads() : Runtime.getRuntime().availableProcessors();
        int ranks = backends.ranks();
        int passes = plan.passesPerRank(ranks);
        int threadsPerRank = Math.max(1, threads / ranks);
        List<TrainingBackend> opened = new ArrayList<>(Collections.nCopies(ranks, null));
        List<PrefetchingBatches> loaders = new ArrayList<>(Collections.nCopies(ranks, null));
        List<Trainer> trainers = new ArrayList<>(Collections.nCopies(ranks, null));
        int from = completed;
        Checkpoint.Resumed restore = resumed;
        MultiScale multiScale = MultiScale.of(spec, o.multiScale(), o.seed(), plan.maxBatches());
        InputSizes sizes = multiScale != null ? multiScale : InputSizes.fixed(spec.net().width(), spec.net().height());
        // built here, once, for every rank: the networks of all the sizes are made before the first iteration
        List<NetworkSpec> sized = multiScale == null ? List.of()
                : multiScale.sizes().stream().map(s -> spec.withInput(s.width(), s.height())).toList();
        try (backends; RankThreads rankThreads = new RankThreads(ranks, "argus-train", backends::abort)) {
            try {
                rankThreads.onEach(r -> {
                    TrainingBackend backend = backends.open(r, spec, initial, plan.miniBatch(), threadsPerRank, o.fp16());
                    opened.set(r, backend);
                    if (!sized.isEmpty()) backend.prepareInputSizes(sized);
                    DetectionBatches share = DetectionBatches.share(train, Augmentation.of(spec), sizes,
                            plan.miniBatch(), o.seed(), (long) from * passes, r, ranks, passes);
                    loaders.set(r, loader(o, backend, threadsPerRank, ranks, share));
                    if (restore != null && restore.optimizer() != null) {
                        backend.restoreOptimizerState(restore.optimizer());
                    }
                    trainers.set(r, new Trainer(backend, loaders.get(r), plan, scaler(r, scaler, spec, restore), from));
                    return null;
                });
                PrefetchingBatches first = loaders.get(0);
                listener.onStart(String.format("%s on %s%s: %d training images%s, batch %d (subdivisions %d), "
                                + "iterations %d..%d, %s; loader: %d thread%s, %d batches ahead%s",
                        spec.name(), opened.get(0).name(), ranks > 1 ? " and " + (ranks - 1) + " more rank"
                                + (ranks > 2 ? "s" : "") + " (" + passes + " pass" + (passes == 1 ? "" : "es")
                                + " of " + plan.miniBatch() + " images each per iteration)" : "",
                        train.size(), train.packed() ? " (packed)" : "", plan.batch(), plan.subdivisions(),
                        completed + 1, plan.maxBatches(), burnInNote(plan, o, kept), first.threads(),
                        first.threads() == 1 ? "" : "s",
                        first.depth(), ranks > 1 ? " per rank" : "")
                        + (multiScale != null ? "; " + multiScale.describe() : "")
                        + (opened.get(0).memory() != null ? "; " + opened.get(0).memory() : ""));
                Trainer lead = trainers.get(0);
                int checkpointed = o.resume() ? completed : -1;
                boolean suspended = false;
                double seconds = 0;
                double waited = 0;
                while (lead.completed() < plan.maxBatches()) {
                    if (suspend.getAsBoolean()) {
                        suspended = true;
                        break;
                    }
                    int done = lead.completed();
                    if (multiScale != null && (done % MultiScale.ITERATIONS_PER_SIZE == 0 || done == from)) {
                        InputSizes.Size size = multiScale.at(done);
                        listener.onInputSize(done + 1, size.width(), size.height());
                    }
                    long t0 = System.nanoTime();
                    List<IterationStats> each = rankThreads.onEach(r -> trainers.get(r).iterate());
                    seconds += (System.nanoTime() - t0) / 1e9;
                    IterationStats stats = combine(each, plan);
                    waited += stats.dataWaitSeconds();
                    listener.onIteration(stats);
                    if (stats.iteration() % o.checkpointEvery() == 0 && stats.iteration() < plan.maxBatches()) {
                        writeCheckpoint(rankThreads, o, spec, lead, schedule);
                        checkpointed = stats.iteration();
                        listener.onCheckpoint(last, stats.iteration());
                    }
                }
                if (checkpointed != lead.completed()) {
                    writeCheckpoint(rankThreads, o, spec, lead, schedule);
                    listener.onCheckpoint(last, lead.completed());
                }
                LossScaler leadScaler = lead.scaler();
                return new Result(last, lead.completed(), leadScaler.scale(), leadScaler.skipped(), suspended,
                        ranks == 1 ? lead.seconds() : seconds, ranks == 1 ? lead.dataWaitSeconds() : waited);
            } finally {
                closeRanks(rankThreads, loaders, opened);
            }
        }
    }

    /** Says the burn-in and why, so a run from weights shows its rate starts at once. */
    private static String burnInNote(TrainingPlan plan, Options o, Checkpoint.Schedule kept) {
        int burnIn = plan.learningRate().burnIn();
        String why = o.burnIn() != AUTO_BURN_IN ? " (--burn-in)" : kept != null ? " (the checkpoint's)"
                : o.weights() != null ? " (from --weights)" : "";
        String rate = "learning rate " + plan.learningRate().base() + (o.learningRate() > 0 ? " (--learning-rate)"
                : kept != null ? " (the checkpoint's)" : "") + ", ";
        return rate + (burnIn == 0 ? "no burn-in" + why
                : "burn-in " + burnIn + " iteration" + (burnIn == 1 ? "" : "s") + why);
    }

    /** Rank 0 uses the run's scaler (restored from the checkpoint); the others a copy in the same state. */
    private static LossScaler scaler(int rank, LossScaler lead, NetworkSpec spec, Checkpoint.Resumed resumed) {
        if (rank == 0) return lead;
        LossScaler copy = LossScaler.of(spec.net().training());
        if (resumed != null && resumed.scaler() != null) resumed.scaler().restoreInto(copy);
        return copy;
    }

    /** Rank 0's state, written on rank 0's thread (a GPU backend reads its device there). */
    private static void writeCheckpoint(RankThreads rankThreads, Options o, NetworkSpec spec, Trainer lead,
                                        Checkpoint.Schedule schedule) {
        rankThreads.onEach(r -> {
            if (r == 0) Checkpoint.write(o.out(), spec, lead, o.seed(), schedule);
            return null;
        });
    }

    /**
     * One line for the ranks' iteration: its loss per image averaged over the ranks (each trained the same number of
     * images), images per second summed, the longest data wait; the rest is the same on every rank.
     */
    static IterationStats combine(List<IterationStats> each, TrainingPlan plan) {
        if (each.size() == 1) return each.get(0);
        LossParts loss = LossParts.ZERO;
        double imagesPerSecond = 0;
        double waited = 0;
        double share = 0;
        for (IterationStats s : each) {
            loss = loss.plus(s.lossPerImage());
            imagesPerSecond += s.imagesPerSecond();
            waited = Math.max(waited, s.dataWaitSeconds());
            share = Math.max(share, s.dataWaitShare());
        }
        IterationStats r0 = each.get(0);
        double eta = (plan.maxBatches() - r0.iteration()) * (double) plan.batch() / imagesPerSecond;
        return new IterationStats(r0.iteration(), r0.maxBatches(), loss.dividedBy(each.size()), r0.lossScale(),
                r0.applied(), r0.skipped(), r0.learningRate(), imagesPerSecond, eta, waited, share);
    }

    /** Closes every rank's loader and backend on its own thread; the first failure is thrown after all are tried. */
    private static void closeRanks(RankThreads rankThreads, List<PrefetchingBatches> loaders,
                                   List<TrainingBackend> opened) {
        RuntimeException failure = null;
        try {
            rankThreads.onEach(r -> {
                RuntimeException e = null;
                try {
                    if (loaders.get(r) != null) loaders.get(r).close();
                } catch (RuntimeException x) {
                    e = x;
                }
                try {
                    if (opened.get(r) != null) opened.get(r).close();
                } catch (RuntimeException x) {
                    if (e == null) e = x;
                }
                if (e != null) throw e;
                return null;
            });
        } catch (RuntimeException e) {
            failure = e;
        }
        if (failure != null && !rankThreads.aborted()) throw failure;
    }

    /**
     * The batch loader: by default one thread per processor the backend leaves free (the CPU backend computes on
     * {@code threads}; a GPU backend's feeding is one thread), at least one.
     */
    private static PrefetchingBatches loader(Options o, TrainingBackend backend, int threads, int ranks,
                                             DetectionBatches batches) {
        int training = "cpu".equals(backend.kind()) ? threads : 1;
        int loaderThreads = o.loaderThreads() > 0 ? Math.max(1, o.loaderThreads() / ranks)
                : Math.max(1, PrefetchingBatches.defaultThreads(training * ranks) / ranks);
        int depth = o.loaderDepth() > 0 ? o.loaderDepth() : PrefetchingBatches.DEFAULT_DEPTH;
        return new PrefetchingBatches(batches, loaderThreads, depth);
    }
}
