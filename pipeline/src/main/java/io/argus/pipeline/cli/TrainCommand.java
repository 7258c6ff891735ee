package io.argus.pipeline.cli;

import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.cuda.NcclRanks;
import io.argus.trainer.cuda.Precision;
import io.argus.trainer.train.HostRanks;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.MultiScale;
import io.argus.trainer.train.TrainingRun;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus train}: trains a Darknet cfg on a Darknet-layout dataset on the CPU or (--backend cuda, or auto with a
 * usable GPU) a GPU, through the same {@link TrainingBackends} as the pipeline's fine-tunes; the GPU's settings come
 * from the -Dargus.cuda.* properties ({@link CudaSystemProperties}). SIGTERM or SIGINT suspends it: the iteration in
 * progress finishes, the checkpoint is written, and {@code --resume} continues exactly there ({@link SuspendOnSignal}).
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"Train a Darknet cfg on a dataset (.data file), CPU or GPU.",
                "Runs on the CPU or an NVIDIA GPU; writes OUT/<cfg name>_last.weights.",
                "SIGTERM or Ctrl-C suspends it after the iteration in progress, with a checkpoint; --resume goes on."})
final class TrainCommand implements Callable<Integer> {
    @Option(names = "--cfg", required = true, description = "Darknet cfg file ([net] batch, subdivisions, schedule)")
    Path cfg;

    @Option(names = "--weights", description = "starting weights (default: Darknet's initialisation from --seed)")
    Path weights;

    @Option(names = "--burn-in", defaultValue = "auto",
            description = "iterations over which the learning rate ramps up from 0; auto: none with --weights (trained "
                    + "weights take the full rate at once), the cfg's burn_in from scratch, the checkpoint's with "
                    + "--resume (default ${DEFAULT-VALUE})")
    String burnIn;

    @Option(names = "--learning-rate", defaultValue = "0",
            description = "base learning rate instead of the cfg's learning_rate (its steps and policy still apply); "
                    + "a cfg's rate is for training from scratch, a fine-tune from --weights usually wants a tenth of "
                    + "it or less; a checkpoint keeps it, so --resume continues with it (default: the cfg's)")
    float learningRate;

    @Option(names = "--data", required = true, description = "Darknet .data file (classes, train, valid, names)")
    Path data;

    @Option(names = "--max-batches", defaultValue = "0", description = "iterations to run (default: the cfg's max_batches)")
    int maxBatches;

    @Option(names = "--out", required = true,
            description = "directory for the checkpoints: <cfg name>_ckpt<N>.momentum, .weights, .state (the last two "
                    + "iterations N), <cfg name>_last.checkpoint naming the newest, <cfg name>_last.weights (its weights)")
    Path out;

    @Option(names = "--checkpoint-every", defaultValue = "100",
            description = "iterations between checkpoints (default ${DEFAULT-VALUE})")
    int checkpointEvery;

    @Option(names = "--resume", description = "continue from the newest complete checkpoint in OUT (weights, momentum, "
            + "loss scale) exactly where it stopped, even after kill -9")
    boolean resume;

    @Option(names = "--discard-checkpoints", description = "start afresh in an OUT that holds an earlier run's "
            + "checkpoints, deleting them (without it such a start is refused, so a forgotten --resume loses nothing)")
    boolean discardCheckpoints;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the initialisation and the batches (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--threads", defaultValue = "0", description = "worker threads (default: one per processor)")
    int threads;

    @Option(names = "--loader-threads", defaultValue = "0",
            description = "threads decoding and augmenting batches ahead (default: the processors the backend leaves "
                    + "free, at least 1: processors - --threads on the CPU, processors - 1 on cuda)")
    int loaderThreads;

    @Option(names = "--loader-depth", defaultValue = "0",
            description = "batches made ahead of the one training (default 3; each is batch/subdivisions images)")
    int loaderDepth;

    @Option(names = "--precision",
            description = "fp32, or fp16: mixed precision with dynamic loss scaling (emulated on the CPU); default "
                    + "fp32 on the CPU, fp16 on cuda")
    String precision;

    @Option(names = "--backend", defaultValue = "cpu",
            description = "cpu; cuda: FP16/FP32 training on an NVIDIA GPU (-Dargus.cuda.device picks it); auto: cuda "
                    + "when usable, else cpu (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--gpus", defaultValue = "1",
            description = "data-parallel training on GPUs 0..N-1 (cuda): each GPU trains on its share of every "
                    + "iteration's batch/subdivisions mini-batches (subdivisions a multiple of N), gradients summed "
                    + "over NCCL; a checkpoint resumes on any such N (default ${DEFAULT-VALUE})")
    int gpus;

    @Option(names = "--ranks", defaultValue = "1",
            description = "cpu: data-parallel training on N ranks of this process, the stand-in for N GPUs "
                    + "(default ${DEFAULT-VALUE})")
    int ranks;

    @Option(names = "--multi-scale", defaultValue = "cfg",
            description = "multi-scale training as Darknet's: every 10 iterations an input from about 1/1.4 to 1.4 "
                    + "times the cfg's, a multiple of 32, the same on every rank and at a resume; cfg: when the cfg's "
                    + "[yolo] layers say random=1 (or a factor), on: always, off: never; CPU only for now "
                    + "(default ${DEFAULT-VALUE})")
    String multiScale;

    @Override
    public Integer call() {
        if (checkpointEvery <= 0) throw new IllegalArgumentException("--checkpoint-every must be positive");
        if (gpus < 1) throw new IllegalArgumentException("--gpus: expected >= 1, found " + gpus);
        if (ranks < 1) throw new IllegalArgumentException("--ranks: expected >= 1, found " + ranks);
        TrainingBackends.Choice device = TrainingBackends.choose(TrainingBackends.Kind.parse(backend, "--backend"),
                "--backend");
        if (device.note() != null) System.err.println("argus train: " + device.note());
        boolean cuda = device.cuda();
        if (gpus > 1 && !cuda) {
            throw new IllegalArgumentException("--gpus " + gpus + " trains on GPUs: use --backend cuda (--ranks N for "
                    + "ranks on the CPU)");
        }
        if (ranks > 1 && cuda) throw new IllegalArgumentException("--ranks is for the CPU: on GPUs use --gpus " + ranks);
        if (precision == null) precision = cuda ? "fp16" : "fp32";
        boolean fp16 = switch (precision.toLowerCase(Locale.ROOT)) {
            case "fp32" -> false;
            case "fp16" -> true;
            case "bf16" -> {   // refused with the reason (this CPU's instructions, or not implemented)
                io.argus.detector.cpu.CpuTrainingNetwork.requirePrecision(io.argus.detector.cpu.CpuPrecision.BF16);
                yield false;
            }
            default -> throw new IllegalArgumentException("--precision: expected fp32 or fp16, found " + precision);
        };
        if (loaderThreads < 0) throw new IllegalArgumentException("--loader-threads: expected >= 1 (0: default), found " + loaderThreads);
        if (loaderDepth < 0) throw new IllegalArgumentException("--loader-depth: expected >= 1 (0: default), found " + loaderDepth);
        if (resume && weights != null) throw new IllegalArgumentException("--resume and --weights exclude each other");
        int burnInIterations = burnIn(burnIn);
        MultiScale.Mode multiScaleMode = MultiScale.Mode.parse(multiScale, "--multi-scale");
        if (!(learningRate >= 0) || !Float.isFinite(learningRate)) {
            throw new IllegalArgumentException("--learning-rate: expected a rate > 0, found " + learningRate);
        }
        if (weights != null && !Files.isRegularFile(weights)) {
            throw new IllegalArgumentException("--weights: no such file " + weights);
        }
        if (resume && discardCheckpoints) {
            throw new IllegalArgumentException("--resume and --discard-checkpoints exclude each other");
        }
        if (!resume && !discardCheckpoints) refuseToOverwrite();
        Progress progress = new Progress(System.out, System.console() != null);
        try (SuspendOnSignal signal = new SuspendOnSignal(System.err)) {
            TrainingRun.Result r = TrainingRun.run(new TrainingRun.Options(cfg, weights, data, maxBatches, out,
                    checkpointEvery, resume, seed, threads, fp16, loaderThreads, loaderDepth, burnInIterations,
                    learningRate, multiScaleMode),
                    progress, backends(device, fp16, gpus, ranks), signal);
            progress.finish();
            if (r.suspended()) {
                System.out.printf(Locale.ROOT, "argus train: suspended at iteration %d (%s); continue with --resume%n",
                        r.iterations(), out);
            } else {
                System.out.printf(Locale.ROOT, "wrote %s after %d iterations (loss scale %s, %d skipped steps); waited for "
                                + "data %.1f%% of %.1f s%n", r.weights(), r.iterations(), Progress.compact(r.lossScale()),
                        r.skipped(), r.seconds() > 0 ? 100 * r.dataWaitSeconds() / r.seconds() : 0.0, r.seconds());
            }
            System.out.flush(); // before the signal's hook lets the JVM exit
            return 0;
        }
    }

    /** {@code --burn-in}: auto or a number of iterations. */
    static int burnIn(String value) {
        if (value.equalsIgnoreCase("auto")) return TrainingRun.AUTO_BURN_IN;
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 0) return n;
        } catch (NumberFormatException e) {
            // explained below
        }
        throw new IllegalArgumentException("--burn-in: expected auto or a number of iterations >= 0, found " + value);
    }

    /**
     * The chosen device's backend: on the GPU mixed precision for fp16, FP32 otherwise, with the options of the
     * system properties; on the CPU fp16 is emulated.
     */
    /** A fresh start would delete an earlier run's checkpoints in {@code --out}: refused unless asked for. */
    private void refuseToOverwrite() {
        io.argus.detector.darknet.NetworkSpec spec = io.argus.detector.darknet.NetworkSpec.load(cfg);
        int earlier = io.argus.trainer.train.Checkpoint.newest(out, spec);
        if (earlier < 0) return;
        throw new IllegalArgumentException("--out " + out + " holds the checkpoint of an earlier run of " + spec.name()
                + " (iteration " + earlier + "): add --resume to continue it, --discard-checkpoints to start afresh and "
                + "delete it, or choose another --out");
    }

    static TrainingRun.Backends backends(TrainingBackends.Choice device, boolean fp16, int gpus, int ranks) {
        if (gpus > 1) {
            return new NcclRanks(NcclRanks.firstDevices(gpus),
                    CudaSystemProperties.training(fp16 ? Precision.MIXED : Precision.FP32));
        }
        if (ranks > 1) return new HostRanks(ranks);
        return TrainingRun.alone(backends(device));
    }

    static TrainingRun.BackendFactory backends(TrainingBackends.Choice device) {
        return (spec, initial, miniBatch, threads, fp16) -> TrainingBackends.open(device,
                CudaSystemProperties.training(fp16 ? Precision.MIXED : Precision.FP32), spec, initial, miniBatch,
                threads, fp16);
    }

    /** One status line per iteration: redrawn in place on a terminal, every tenth iteration as a new line otherwise. */
    static final class Progress implements TrainingRun.Listener {
        private final PrintStream out;
        private final boolean terminal;
        private boolean open;

        Progress(PrintStream out, boolean terminal) {
            this.out = out;
            this.terminal = terminal;
        }

        @Override
        public void onStart(String description) {
            out.println(description);
        }

        @Override
        public void onIteration(IterationStats s) {
            String line = line(s);
            if (terminal) {
                out.print("\r" + line + "\033[K");
                out.flush();
                open = true;
            } else if (s.iteration() % 10 == 0 || s.iteration() == s.maxBatches() || s.iteration() == 1) {
                out.println(line);
            }
        }

        @Override
        public void onInputSize(int iteration, int width, int height) {
            finish();
            out.printf(Locale.ROOT, "multi-scale: iteration %d input %dx%d%n", iteration, width, height);
        }

        @Override
        public void onCheckpoint(Path file, int iteration) {
            finish();
            out.printf("checkpoint %s at iteration %d%n", file, iteration);
        }

        /** On standard error, as the command's other warnings. */
        @Override
        public void onNotice(String message) {
            finish();
            System.err.println("argus train: " + message);
        }

        void finish() {
            if (open) out.println();
            open = false;
        }

        static String line(IterationStats s) {
            int width = 20;
            int done = (int) ((long) width * s.iteration() / s.maxBatches());
            String bar = "=".repeat(done) + (done < width ? ">" + " ".repeat(width - done - 1) : "");
            var l = s.lossPerImage();
            return String.format(Locale.ROOT,
                    "%d/%d [%s] loss %.3f (box %.3f obj %.3f cls %.3f) scale %s skipped %d%s lr %.6f %.1f img/s "
                            + "data wait %.1f%% ETA %s",
                    s.iteration(), s.maxBatches(), bar, l.total(), l.box(), l.objectness(), l.classification(),
                    compact(s.lossScale()), s.skipped(), s.applied() ? "" : " (overflow: step skipped)",
                    s.learningRate(), s.imagesPerSecond(), 100 * s.dataWaitShare(), duration(s.etaSeconds()));
        }

        static String compact(float v) {
            return v == Math.rint(v) && Math.abs(v) < 1e7 ? String.valueOf((long) v) : String.valueOf(v);
        }

        static String duration(double seconds) {
            if (!Double.isFinite(seconds)) return "?";
            long s = Math.round(seconds);
            return s >= 3600 ? String.format("%dh%02dm", s / 3600, s % 3600 / 60)
                    : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
        }
    }
}
