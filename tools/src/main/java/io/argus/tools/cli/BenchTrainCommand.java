package io.argus.tools.cli;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.pipeline.cli.CudaSystemProperties;
import io.argus.pipeline.cli.ProjectPaths;
import io.argus.tools.trainer.CpuTrainBench;
import io.argus.tools.trainer.CudaTrainBench;
import io.argus.tools.trainer.LoaderBench;
import io.argus.tools.trainer.LossCurves;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.data.Augmentation;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.PrefetchingBatches;
import io.argus.trainer.data.TrainingBatch;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench train}: training speed and memory on the GPU, per precision: whole iterations (forward, the
 * stand-in loss = mean of the squared head outputs, backward, overflow check, SGD) on a fixed batch. With
 * {@code --curves N}, also N iterations of real training (YOLO loss, the cfg's schedule and loss scaling) on a pool of
 * synthetic scenes per precision, the loss of every iteration to {@code --csv}. The PyTorch peer is
 * scripts/gpu/torch_train_peer.py, run in the same job by scripts/gpu/run-train.sh. With {@code --data D}, also the
 * images per second the batch loader sustains alone on D at the same input and batch ({@link LoaderBench}), set
 * against each precision's training images/s: below 1x the GPU would wait for data.
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"Benchmark training on the GPU (mixed precision and FP32).",
                "Or on the CPU (--backend cpu). Optionally with loss curves."})
final class BenchTrainCommand implements Callable<Integer> {
    @Option(names = "--cfg", description = "Darknet cfg (default: config/models/cfg/yolov4-tiny.cfg)")
    Path cfg;

    @Option(names = "--weights", description = "starting weights (default: Darknet's initialisation from --seed)")
    Path weights;

    @Option(names = "--width", defaultValue = "0", description = "network input width (default: the cfg's)")
    int width;

    @Option(names = "--height", defaultValue = "0", description = "network input height (default: the cfg's)")
    int height;

    @Option(names = "--batch", defaultValue = "0", description = "images per iteration (default: the cfg's mini-batch)")
    int batch;

    @Option(names = "--precision", defaultValue = "mixed,fp32,tf32", split = ",",
            description = "modes to time, in order: mixed (FP16 + FP32 masters), fp32 (IEEE FP32 convolutions), tf32 "
                    + "(FP32 storage, TF32 convolutions, PyTorch's default) (default ${DEFAULT-VALUE})")
    List<String> precisions;

    @Option(names = "--curve-precision", defaultValue = "mixed,fp32", split = ",",
            description = "modes of the loss curves (default ${DEFAULT-VALUE})")
    List<String> curvePrecisions;

    @Option(names = "--profile", description = "print one pass's device time per layer for each mode")
    boolean profile;

    @Option(names = "--seconds", defaultValue = "10",
            description = "timed seconds per precision, 0: no speed run (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--warmup", defaultValue = "5", description = "untimed iterations first (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the initialisation (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--curves", defaultValue = "0", description = "iterations of real training per precision (0: none)")
    int curves;

    @Option(names = "--pool", defaultValue = "512", description = "synthetic scenes in the curves' pool (default ${DEFAULT-VALUE})")
    int pool;

    @Option(names = "--curve-seeds", defaultValue = "1", split = ",",
            description = "batch orders per curve precision: 1 cycles the pool in order, others reshuffle it every "
                    + "epoch; two seeds measure run-to-run noise (default ${DEFAULT-VALUE})")
    List<Long> curveSeeds;

    @Option(names = "--csv", description = "where the curves' per-iteration losses go (default: stdout)")
    Path csv;

    @Option(names = "--data", description = "also time the batch loader on this .data file's train list or pack at "
            + "the same input and batch, against the training images/s")
    Path data;

    @Option(names = "--gpus", split = ",",
            description = "data-parallel training on GPUs 0..N-1 for each N listed (e.g. 1,2,4): --batch images per "
                    + "GPU, gradients summed over NCCL; images/s of all GPUs and the scaling against N=1 measured "
                    + "in the same run (replaces the single-GPU timing)")
    List<Integer> gpus;

    @Option(names = "--backend", defaultValue = "cuda",
            description = "cuda, or cpu: CPU training (FP32; --precision fp16 emulates mixed precision) on --threads "
                    + "threads, io.argus.trainer.bench.CpuTrainBench (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--threads", defaultValue = "0", description = "--backend cpu: threads (default: one per processor)")
    int threads;

    @Option(names = "--loader-threads", defaultValue = "0",
            description = "loader threads for --data (default: processors - 1, at least 1)")
    int loaderThreads;

    @Override
    public Integer call() throws Exception {
        Path c = cfg != null ? cfg : ProjectPaths.home().resolve("config/models/cfg/yolov4-tiny.cfg");
        NetworkSpec spec = NetworkSpec.load(c, width, height);
        ModelWeights initial = weights != null ? WeightsFile.read(weights, spec) : WeightsInit.darknet(spec, seed);
        int n = batch > 0 ? batch : spec.net().batch() / spec.net().subdivisions();
        if (backend.equals("cpu")) return cpu(spec, initial, n);
        if (!backend.equals("cuda")) throw new IllegalArgumentException("--backend: expected cuda or cpu, found " + backend);
        List<CudaTrainingOptions> list = new ArrayList<>();
        for (String p : precisions) list.add(CudaSystemProperties.training(p));
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "model: %s %dx%d, batch %d, %.2f GFLOP/image forward%n", spec.name(),
                spec.net().width(), spec.net().height(), n, spec.flops() / 1e9);
        CudaTrainBench bench = new CudaTrainBench(seconds, warmup, profile, CudaSystemProperties.verbose(), out);
        if (gpus != null && !gpus.isEmpty()) return scaling(bench, spec, initial, n, list, out);
        List<CudaTrainBench.Result> results = new ArrayList<>();
        if (seconds > 0) for (CudaTrainingOptions p : list) results.add(bench.run(spec, initial, n, p));
        for (int i = 1; i < results.size(); i++) {
            CudaTrainBench.Result a = results.get(0), b = results.get(i);
            out.printf(Locale.ROOT, "%s vs %s: %.2fx images/s, %.2fx allocated memory, %.2fx used memory%n",
                    a.mode(), b.mode(), a.imagesPerSecond() / b.imagesPerSecond(),
                    (double) a.allocatedBytes() / b.allocatedBytes(), (double) a.usedBytes() / b.usedBytes());
        }
        if (data != null) {
            DataFile d = DataFile.read(data);
            Dataset dataset = Dataset.open(d.requireTrain(), d.classes());
            int threads = loaderThreads > 0 ? loaderThreads : PrefetchingBatches.defaultThreads(1);
            LoaderBench.Result loader = new LoaderBench(2, Math.max(5, seconds), out).run(dataset, Augmentation.of(spec),
                    spec.net().width(), spec.net().height(), n, threads, PrefetchingBatches.DEFAULT_DEPTH, seed);
            for (CudaTrainBench.Result r : results) {
                out.printf(Locale.ROOT, "loader vs %s: %.1f / %.1f images/s = %.2fx (%d loader threads; below 1x the "
                                + "GPU waits for data)%n", r.mode(), loader.imagesPerSecond(), r.imagesPerSecond(),
                        loader.imagesPerSecond() / r.imagesPerSecond(), threads);
            }
        }
        if (curves > 0) {
            if (batch > 0 && batch != spec.net().batch()) {
                out.println("curves use the cfg's batch " + spec.net().batch() + " (subdivisions "
                        + spec.net().subdivisions() + "), not --batch");
            }
            long t0 = System.nanoTime();
            List<TrainingBatch> scenes = LossCurves.pool(spec, pool, 7);
            out.printf(Locale.ROOT, "rendered %d synthetic scenes at %dx%d in %.1f s%n", pool, spec.net().width(),
                    spec.net().height(), (System.nanoTime() - t0) / 1e9);
            try (PrintStream table = csv != null
                    ? new PrintStream(Files.newOutputStream(csv), true, StandardCharsets.UTF_8) : null) {
                PrintStream rows = table != null ? table : out;
                rows.println("precision,iteration,loss,box,objectness,classes,loss_scale,applied,learning_rate");
                for (long orderSeed : curveSeeds) {
                    for (String p : curvePrecisions) {
                        LossCurves.run(spec, initial, CudaSystemProperties.training(p), curves, scenes, orderSeed, rows, out);
                    }
                }
            }
        }
        return 0;
    }

    /** CPU training speed: each of --precision (fp32, or fp16: emulated) in turn; the GPU-only options are refused. */
    private int cpu(NetworkSpec spec, ModelWeights initial, int n) {
        if (curves > 0 || data != null || gpus != null) {
            throw new IllegalArgumentException("--backend cpu times training alone: leave out --curves, --data and --gpus");
        }
        int t = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "model: %s %dx%d, batch %d, %.2f GFLOP/image forward%n", spec.name(),
                spec.net().width(), spec.net().height(), n, spec.flops() / 1e9);
        CpuTrainBench bench = new CpuTrainBench(seconds, warmup, System.out);
        // the GPU modes' default list means: the CPU's own default, FP32
        List<String> modes = precisions.equals(List.of("mixed", "fp32", "tf32")) ? List.of("fp32") : precisions;
        for (String p : modes) {
            if (!p.equals("fp32") && !p.equals("fp16")) {
                throw new IllegalArgumentException("--backend cpu --precision: expected fp32 or fp16, found " + p);
            }
            bench.run(spec, initial, n, t, p.equals("fp16"));
        }
        return 0;
    }

    /**
     * Per precision and GPU count, data-parallel training; the scaling efficiency is images/s over N times the one-GPU
     * images/s of the same run (one GPU measured first even when 1 is not listed).
     */
    private int scaling(CudaTrainBench bench, NetworkSpec spec, ModelWeights initial, int n,
                        List<CudaTrainingOptions> modes, PrintStream out) {
        for (int g : gpus) {
            if (g <= 0) throw new IllegalArgumentException("--gpus: expected GPU counts >= 1, found " + g);
        }
        if (curves > 0 || data != null) {
            throw new IllegalArgumentException("--gpus times data-parallel training alone: leave out --curves and --data");
        }
        for (CudaTrainingOptions mode : modes) {
            List<Integer> counts = new ArrayList<>(gpus);
            if (!counts.contains(1)) counts.add(0, 1);
            double one = Double.NaN;
            List<CudaTrainBench.RanksResult> results = new ArrayList<>();
            for (int g : counts) {
                CudaTrainBench.RanksResult r = bench.runRanks(spec, initial, n, g, mode);
                if (g == 1) one = r.imagesPerSecond();
                results.add(r);
            }
            for (CudaTrainBench.RanksResult r : results) {
                out.printf(Locale.ROOT, "scaling %s gpus=%d: %.1f images/s = %.3f x %d x one GPU's %.1f%s%n", r.mode(),
                        r.gpus(), r.imagesPerSecond(), r.imagesPerSecond() / (r.gpus() * one), r.gpus(), one,
                        r.ranksIdentical() ? "" : " (RANKS DIFFER: the ranks' weights are not the same bits)");
            }
        }
        return 0;
    }
}
