package io.argus.tools.cli;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.pipeline.cli.ProjectPaths;
import io.argus.tools.trainer.LoaderBench;
import io.argus.trainer.data.Augmentation;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.PrefetchingBatches;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench loader}: the images per second the training-batch loader sustains alone ({@link LoaderBench}) on
 * a dataset's {@code train} list or pack, with the cfg's augmentation at its input size and mini-batch (yolov4-tiny:
 * 416x416, 64), per number of loader threads. Compare with `argus bench train`'s images/s on the GPU: the loader keeps
 * a GPU fed when it makes more images per second than the GPU trains.
 */
@Command(name = "loader", mixinStandardHelpOptions = true,
        description = {"Benchmark the training-batch loader alone.",
                "Images/s decoded and augmented at a cfg's input size and batch, per number of loader threads."})
final class BenchLoaderCommand implements Callable<Integer> {
    @Option(names = "--data", required = true, description = "Darknet .data file; its train= list or packed dataset")
    Path data;

    @Option(names = "--cfg", description = "cfg whose augmentation, input and mini-batch are used "
            + "(default: config/models/cfg/yolov4-tiny.cfg)")
    Path cfg;

    @Option(names = "--width", defaultValue = "0", description = "input width (default: the cfg's)")
    int width;

    @Option(names = "--height", defaultValue = "0", description = "input height (default: the cfg's)")
    int height;

    @Option(names = "--batch", defaultValue = "0", description = "images per batch (default: the cfg's mini-batch)")
    int batch;

    @Option(names = "--threads", split = ",",
            description = "loader thread counts, one run each, e.g. 1,2 (default: processors - 1, at least 1)")
    List<Integer> threads;

    @Option(names = "--depth", defaultValue = "3", description = "batches made ahead (default ${DEFAULT-VALUE})")
    int depth;

    @Option(names = "--seconds", defaultValue = "10", description = "timed seconds per run (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--warmup", defaultValue = "2", description = "untimed seconds first (default ${DEFAULT-VALUE})")
    double warmup;

    @Option(names = "--repeat", defaultValue = "1", description = "runs per thread count (default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--decoded-mb", defaultValue = "-1",
            description = "MiB of decoded images kept (0: decode at every use; default: a quarter of the heap)")
    long decodedMb;

    @Option(names = "--predecode", description = "decode every image before timing (a long run's state once the "
            + "decoded images it keeps are in), timed apart")
    boolean predecode;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the batches (default ${DEFAULT-VALUE})")
    long seed;

    @Override
    public Integer call() {
        if (depth < 1) throw new IllegalArgumentException("--depth: expected >= 1, found " + depth);
        if (repeat < 1) throw new IllegalArgumentException("--repeat: expected >= 1, found " + repeat);
        Path c = cfg != null ? cfg : ProjectPaths.home().resolve("config/models/cfg/yolov4-tiny.cfg");
        NetworkSpec spec = NetworkSpec.load(c, width, height);
        int n = batch > 0 ? batch : spec.net().batch() / spec.net().subdivisions();
        DataFile d = DataFile.read(data);
        Dataset dataset = Dataset.open(d.requireTrain(), d.classes());
        if (decodedMb >= 0) dataset = dataset.withDecodedBudget(decodedMb << 20);
        List<Integer> counts = threads != null ? threads : List.of(PrefetchingBatches.defaultThreads(1));
        PrintStream out = System.out;
        Augmentation aug = Augmentation.of(spec);
        out.printf(Locale.ROOT, "dataset %s: %d images%s; augmentation of %s (jitter %.2f, hue %.2f, saturation %.2f, "
                        + "exposure %.2f, flip %s, mosaic %s); batch %d at %dx%d; %d processors%n",
                d.requireTrain(), dataset.size(), dataset.packed() ? " (packed)" : "", spec.name(), aug.jitter(),
                aug.hue(), aug.saturation(), aug.exposure(), aug.flip(), aug.mosaic(), n, spec.net().width(),
                spec.net().height(), Runtime.getRuntime().availableProcessors());
        if (predecode) {
            int t = counts.stream().mapToInt(Integer::intValue).max().orElse(1);
            double s = LoaderBench.decodeAll(dataset, t);
            out.printf(Locale.ROOT, "decoded %d images on %d threads in %.2f s (%.0f images/s), %.1f MiB kept%n",
                    dataset.size(), t, s, dataset.size() / s, dataset.decodedBytes() / 1048576.0);
        }
        LoaderBench bench = new LoaderBench(warmup, seconds, out);
        for (int t : counts) {
            if (t < 1) throw new IllegalArgumentException("--threads: expected >= 1, found " + t);
            for (int r = 0; r < repeat; r++) {
                // Without --predecode every run starts with nothing decoded, so repeats measure the same thing.
                Dataset run = predecode ? dataset : dataset.withDecodedBudget(dataset.decodedBudget());
                bench.run(run, aug, spec.net().width(), spec.net().height(), n, t, depth, seed);
            }
        }
        return 0;
    }
}
