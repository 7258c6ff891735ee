package io.argus.tools.cli;

import io.argus.pipeline.cli.ProjectPaths;
import io.argus.pipeline.cli.RunCommand;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigLoader;
import io.argus.tools.pipeline.PipelineBenchmark;
import io.argus.pipeline.config.TrainingConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench pipeline --cameras N[,M...]}: the live pipeline end to end with N file cameras (1280x720 H.264
 * at 30 fps by default) on the model's {@code --backend} (auto: CUDA when usable), measured at a WebSocket client.
 * With {@code --fine-tune}, each count runs again beside a fine-tune of the same model with the {@code training:}
 * settings of {@code --config} (the GPU acceptance: live p99 within 1.2x while training; results/gpu-runs/README.md).
 * {@code --decoder nvdec} decodes on the GPU and feeds its surfaces straight into the batch; {@code nvdec,cpu} runs
 * both in turn with the same model and batch settings. With {@code --no-detect}, decode only
 * ({@link io.argus.tools.pipeline.DecodeCeiling}) on each decoder.
 */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
        description = {"Benchmark the live pipeline with N file cameras.", "File cameras -> detections -> WebSocket, for 1, 2, ... N cameras in turn."})
final class BenchPipelineCommand implements Callable<Integer> {
    @Option(names = "--cameras", split = ",", defaultValue = "1", description = "camera counts to run in turn, e.g. 1,2,3,4")
    int[] cameras;

    @Option(names = "--seconds", defaultValue = "20", description = "measured seconds per camera count (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--warmup", defaultValue = "5", description = "seconds before measuring (default ${DEFAULT-VALUE})")
    double warmup;

    @Option(names = "--width", defaultValue = "1280", description = "video width (default ${DEFAULT-VALUE})")
    int width;

    @Option(names = "--height", defaultValue = "720", description = "video height (default ${DEFAULT-VALUE})")
    int height;

    @Option(names = "--fps", defaultValue = "30", description = "video frame rate (default ${DEFAULT-VALUE})")
    int fps;

    @Option(names = "--cfg", description = "Darknet cfg (default: config/models/cfg/yolov4-tiny.cfg), random weights")
    Path cfg;

    @Option(names = "--size", defaultValue = "224", description = "network input size (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--threshold", defaultValue = "0.253", description = "confidence threshold (default ${DEFAULT-VALUE}: random weights find about 16 boxes in a 1080p frame of the bench video, a busy scene; 0.2515 fills maxDetections, 100 a frame)")
    double threshold;

    @Option(names = "--max-batch", defaultValue = "4", description = "batcher maxBatch (default ${DEFAULT-VALUE})")
    int maxBatch;

    @Option(names = "--max-wait-ms", defaultValue = "10", description = "batcher maxWaitMs (default ${DEFAULT-VALUE})")
    int maxWaitMs;

    @Option(names = "--snapshots-fps", defaultValue = "0", description = "JPEG snapshots per camera and second (default ${DEFAULT-VALUE})")
    double snapshotsFps;

    @Option(names = "--backend", defaultValue = "auto", description = "the model's backend: cpu, cuda or auto (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--fine-tune", description = "run each camera count again beside a fine-tune of the model (training: of --config)")
    boolean fineTune;

    @Option(names = {"-c", "--config"}, description = "where --fine-tune's training settings come from (default: $ARGUS_CONFIG or config/argus.yaml)")
    Path config;

    @Option(names = "--decoder", split = ",", defaultValue = "cpu", description = "who decodes: cpu, nvdec or both in "
            + "turn (nvdec,cpu: same model and batch settings in one run) (default ${DEFAULT-VALUE})")
    List<String> decoders;

    @Option(names = "--cpu-cameras", split = ",", description = "camera counts for the cpu decoder when several decoders "
            + "run (default: --cameras): CPU decode reaches its limit long before NVDEC")
    int[] cpuCameras;

    @Option(names = "--no-detect", description = "decode only, as fast as the host goes (not paced), frames left where the "
            + "decoder puts them: the ceiling a pipeline result is a share of")
    boolean noDetect;

    @Option(names = "--paced", description = "with --no-detect: each stream at most --fps pictures a second, as live cameras "
            + "deliver them (the decode load of N cameras, not the ceiling)")
    boolean paced;

    @Option(names = "--device", defaultValue = "0", description = "CUDA device the model runs and NVDEC decodes on (default ${DEFAULT-VALUE})")
    int device;

    @Option(names = "--cache-dir", description = "where the benchmark video is kept (default: $ARGUS_CACHE_DIR, else $XDG_CACHE_HOME/argus, else ~/.cache/argus)")
    Path cacheDir;

    @Override
    public Integer call() throws Exception {
        RunCommand.configureLogging();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path model = cfg != null ? cfg.toAbsolutePath() : ProjectPaths.home().resolve("config/models/cfg/yolov4-tiny.cfg");
        if (!java.util.List.of("cpu", "cuda", "auto").contains(backend)) {
            throw new IllegalArgumentException("--backend: expected cpu, cuda or auto, found " + backend);
        }
        for (String decoder : decoders) {
            if (!List.of("cpu", "nvdec").contains(decoder)) {
                throw new IllegalArgumentException("--decoder: expected cpu or nvdec, found " + decoder);
            }
        }
        if (decoders.contains("nvdec") && backend.equals("cpu") && !noDetect) {
            throw new IllegalArgumentException("--decoder nvdec with --backend cpu: NVDEC frames stay on the GPU, for a "
                    + "model on CUDA (use --backend cuda or auto)");
        }
        TrainingConfig training = null;
        if (fineTune) {
            ArgusConfig c = ConfigLoader.loadBlocking(ProjectPaths.config(config), System.getenv(), 60);
            training = c.training();
        }
        var options = new PipelineBenchmark.Options(width, height, fps, model, size, threshold, maxBatch, maxWaitMs, warmup,
                seconds, snapshotsFps, cacheDir != null ? cacheDir : io.argus.gpu.CacheHome.current(), backend, training,
                decoders.get(0), device);
        PipelineBenchmark bench = new PipelineBenchmark(options, System.out);
        if (paced && !noDetect) throw new IllegalArgumentException("--paced goes with --no-detect (the pipeline's cameras are always paced)");
        io.argus.pipeline.video.nvdec.DecodeSteps.enable(decoders.contains("nvdec"));
        if (noDetect) {
            org.bytedeco.javacv.FFmpegFrameGrabber.tryLoad();
            org.bytedeco.ffmpeg.global.avutil.av_log_set_level(org.bytedeco.ffmpeg.global.avutil.AV_LOG_ERROR);
            Path video = bench.video();
            for (String decoder : decoders) {
                System.out.printf(java.util.Locale.ROOT, "video %s (%dx%d @ %d fps, H.264), decode only on %s; %d CPU cores%n",
                        video.getFileName(), width, height, fps, decoder, Runtime.getRuntime().availableProcessors());
                var ceiling = new io.argus.tools.pipeline.DecodeCeiling(video, decoder, device, System.out);
                for (int n : countsFor(decoder)) ceiling.run(n, warmup, seconds, fps, paced);
            }
            return 0;
        }
        for (String decoder : decoders) {
            new PipelineBenchmark(options.withDecoder(decoder), System.out).run(countsFor(decoder));
        }
        return 0;
    }

    private int[] countsFor(String decoder) {
        return decoder.equals("cpu") && cpuCameras != null && decoders.size() > 1 ? cpuCameras : cameras;
    }
}
