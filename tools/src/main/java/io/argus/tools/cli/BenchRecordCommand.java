package io.argus.tools.cli;

import io.argus.pipeline.cli.ProjectPaths;
import io.argus.pipeline.cli.RunCommand;
import io.argus.tools.pipeline.PipelineBenchmark;
import io.argus.tools.pipeline.RecordBenchmark;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench record --cameras N[,M...]}: what recording costs beside detection ({@link RecordBenchmark}):
 * N file cameras (1920x1080 H.264 at 30 fps by default, paced in real time) through the whole app with detection on,
 * recording off then on: CPU per recorded camera, disk MB/s, packets received / written / dropped / lost, and the
 * largest count recorded without loss while detection keeps up.
 */
@Command(name = "record", mixinStandardHelpOptions = true,
        description = {"Benchmark recording beside detection with N file cameras.",
                "Each count twice, recording off then on: CPU per recorded camera, disk MB/s, packets lost."})
final class BenchRecordCommand implements Callable<Integer> {
    @Option(names = "--cameras", split = ",", defaultValue = "1", description = "camera counts to run in turn, e.g. 1,2,4")
    int[] cameras;

    @Option(names = "--seconds", defaultValue = "30", description = "measured seconds per run (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--warmup", defaultValue = "10", description = "seconds before measuring (default ${DEFAULT-VALUE})")
    double warmup;

    @Option(names = "--width", defaultValue = "1920", description = "video width (default ${DEFAULT-VALUE})")
    int width;

    @Option(names = "--height", defaultValue = "1080", description = "video height (default ${DEFAULT-VALUE})")
    int height;

    @Option(names = "--fps", defaultValue = "30", description = "video frame rate (default ${DEFAULT-VALUE})")
    int fps;

    @Option(names = "--cfg", description = "Darknet cfg (default: config/models/cfg/yolov4-tiny.cfg), random weights")
    Path cfg;

    @Option(names = "--size", defaultValue = "224", description = "network input size (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--backend", defaultValue = "auto", description = "the model's backend: cpu, cuda or auto (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--cache-dir", description = "where the benchmark video and the recordings go (default: $ARGUS_CACHE_DIR, else $XDG_CACHE_HOME/argus, else ~/.cache/argus)")
    Path cacheDir;

    @Override
    public Integer call() throws Exception {
        RunCommand.configureLogging();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        if (!java.util.List.of("cpu", "cuda", "auto").contains(backend)) {
            throw new IllegalArgumentException("--backend: expected cpu, cuda or auto, found " + backend);
        }
        Path model = cfg != null ? cfg.toAbsolutePath() : ProjectPaths.home().resolve("config/models/cfg/yolov4-tiny.cfg");
        var options = new PipelineBenchmark.Options(width, height, fps, model, size, 0.253, 4, 10, warmup, seconds, 0,
                cacheDir != null ? cacheDir : io.argus.gpu.CacheHome.current(), backend, null, "cpu", 0);
        new RecordBenchmark(options, System.out).run(cameras);
        return 0;
    }
}
