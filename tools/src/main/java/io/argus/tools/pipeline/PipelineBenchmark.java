package io.argus.tools.pipeline;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.Preprocess;
import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.ModelStats;
import io.argus.pipeline.training.BackgroundFineTune;
import io.argus.pipeline.config.TrainingConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.FFmpegFrameRecorder;
import org.bytedeco.javacv.Frame;

/**
 * {@code argus bench pipeline}: N file cameras (H.264, real-time paced, looping) through the whole pipeline on the
 * configured backend, measured at a real WebSocket client in the same process. Reports per camera count: decode fps,
 * detections per second, latency from decode start to WebSocket receipt (p50/p99), CPU per camera, and where the
 * time goes (decode, queue, preprocess, network + decode + NMS, publish to receipt).
 *
 * <p>With a fine-tune ({@link Options#fineTune}), each camera count runs twice: alone, then beside the trainer
 * verticle's training of the same model ({@link BackgroundFineTune}: the {@code training:} settings, CUDA in mixed
 * precision on a lowest-priority stream when the backend is auto and a GPU is usable), measured once training is
 * past its first update; the last line per count is the p99 ratio with/without against {@value #FINE_TUNE_P99_LIMIT}.
 */
public final class PipelineBenchmark {
    /** Live p99 with a fine-tune beside it may be at most this multiple of the p99 without (the bound for training). */
    public static final double FINE_TUNE_P99_LIMIT = 1.2;

    /**
     * What to run. {@code backend}: the model's (cpu, cuda, auto); {@code fineTune}: training settings to run a
     * fine-tune beside each camera count with, or null.
     */
    public record Options(int width, int height, int fps, Path cfg, int netSize, double threshold, int maxBatch,
                          int maxWaitMs, double warmupSeconds, double seconds, double snapshotFps, Path cacheDir,
                          String backend, TrainingConfig fineTune, String decoder, int device) {
        public Options(int width, int height, int fps, Path cfg, int netSize, double threshold, int maxBatch,
                       int maxWaitMs, double warmupSeconds, double seconds, double snapshotFps, Path cacheDir) {
            this(width, height, fps, cfg, netSize, threshold, maxBatch, maxWaitMs, warmupSeconds, seconds, snapshotFps,
                    cacheDir, "auto", null, "cpu", 0);
        }

        /** The same settings with another decoder (cpu, nvdec or auto: cameras[].decoder). */
        public Options withDecoder(String d) {
            return new Options(width, height, fps, cfg, netSize, threshold, maxBatch, maxWaitMs, warmupSeconds, seconds,
                    snapshotFps, cacheDir, backend, fineTune, d, device);
        }
    }

    /** Device time per batch of the stages the CUDA backend ran (CUDA events), NaN on the CPU backend. */
    public record GpuStages(double inputMs, double networkMs, double postMs) {}

    /** Utilisation over the window (nvidia-smi's) and memory at its end; NaN where not measured. */
    public record Usage(double gpuPercent, double decoderPercent, double gpuMemoryMiB, double rssStartMiB,
                        double rssEndMiB) {}

    /** The fine-tune beside a step, over the measured window. */
    public record FineTuneFigures(String backend, String precision, String device, long iterations,
                                  double imagesPerSecond, float lossScale, long skippedSteps) {}

    /** One step's figures. */
    public record Result(int cameras, double decodeFpsMean, double decodeFpsMin, double detectionsPerSecondPerCamera,
                         double p50Ms, double p99Ms, double maxMs, long samples, double cpuPercentPerCamera,
                         double cpuPercentTotal, double decodeMs, double queueMs, double preprocessMs,
                         double inferenceMsPerBatch, double meanBatch, double publishToReceiptMs, double supersededPerSecond,
                         boolean sustained, FineTuneFigures fineTune, boolean gpuPreprocess, String decoder,
                         int camerasOnNvdec, GpuStages gpuStages, Usage usage) {}

    private final Options o;
    private final PrintStream out;

    public PipelineBenchmark(Options options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    /** Runs each camera count in turn and prints a line per step, then the largest count sustained at full rate. */
    public List<Result> run(int[] cameraCounts) throws Exception {
        FFmpegFrameGrabber.tryLoad();
        avutil.av_log_set_level(avutil.AV_LOG_QUIET);
        Path video = video();
        double preprocessMs = preprocessMs(video);
        out.printf(Locale.ROOT, "video %s (%dx%d @ %d fps, H.264); model %s at %dx%d; CPU preprocess of one frame %.2f ms "
                        + "(measured separately); %d CPU cores%n", video.getFileName(), o.width, o.height, o.fps,
                o.cfg.getFileName(), o.netSize, o.netSize, preprocessMs, Runtime.getRuntime().availableProcessors());
        List<Result> results = new ArrayList<>();
        for (int n : cameraCounts) {
            Result alone = step(n, video, preprocessMs, false);
            results.add(alone);
            print(alone);
            if (o.fineTune == null) continue;
            Result beside = step(n, video, preprocessMs, true);
            results.add(beside);
            print(beside);
            compare(alone, beside);
        }
        int best = 0;
        for (Result r : results) if (r.sustained() && r.fineTune() == null) best = Math.max(best, r.cameras());
        out.printf(Locale.ROOT, "max cameras sustained at full rate with decoder %s (decode >= 95%% of %d fps, >= 95%% "
                + "of decoded frames detected, p99 < 150 ms): %d%n", o.decoder, o.fps, best);
        return results;
    }

    private void print(Result r) {
        out.printf(Locale.ROOT, "cameras %d%s, decoder %s%s: decode %.1f fps/camera (min %.1f) | detections %.1f/s per camera "
                        + "(%.1f%% of decoded) | latency decode->WebSocket "
                        + "p50 %.1f ms p99 %.1f ms max %.1f ms (%d messages) | CPU %.1f%% of a core per camera (%.0f%% total) | %s%n",
                r.cameras(), r.fineTune() != null ? " with fine-tune" : "", r.decoder(),
                r.decoder().equals("cpu") ? "" : " (" + r.camerasOnNvdec() + " on NVDEC)", r.decodeFpsMean(),
                r.decodeFpsMin(), r.detectionsPerSecondPerCamera(),
                100 * r.detectionsPerSecondPerCamera() / r.decodeFpsMean(), r.p50Ms(), r.p99Ms(), r.maxMs(),
                r.samples(), r.cpuPercentPerCamera(), r.cpuPercentTotal(), r.sustained() ? "SUSTAINED" : "not sustained");
        Usage u = r.usage();
        out.printf(Locale.ROOT, "  utilisation: GPU %s, NVDEC %s, CPU %.0f%% of %d cores | memory: GPU %s MiB in use, "
                        + "this process %.0f -> %.0f MiB resident over the window%n",
                DeviceSampler.percent(u.gpuPercent()), DeviceSampler.percent(u.decoderPercent()), r.cpuPercentTotal(),
                Runtime.getRuntime().availableProcessors(), Double.isNaN(u.gpuMemoryMiB()) ? "n/a"
                        : String.format(Locale.ROOT, "%.0f", u.gpuMemoryMiB()), u.rssStartMiB(), u.rssEndMiB());
        // the CPU backend resizes each frame on the CPU (timed apart, above) before the network; the CUDA backend
        // times its stages on the device with CUDA events: frames into the batch tensor (upload + resize, or the NV12
        // conversion of surfaces already there), the network, YOLO decode + NMS + detections back
        GpuStages g = r.gpuStages();
        String detector = r.gpuPreprocess()
                ? String.format(Locale.ROOT, "detector %.2f ms (GPU: input %.2f ms, network %.2f ms, decode+NMS %.2f ms; "
                        + "the rest host work)", r.inferenceMsPerBatch(), g.inputMs(), g.networkMs(), g.postMs())
                : String.format(Locale.ROOT, "preprocess %.2f ms | network+decode+NMS %.2f ms", r.preprocessMs(),
                        Math.max(0, r.inferenceMsPerBatch() - r.preprocessMs() * r.meanBatch()));
        out.printf(Locale.ROOT, "  time per processed frame: decode %.2f ms | queue (capture to batch start) %.2f ms | %s "
                        + "per batch of %.2f | publish to WebSocket receipt %.2f ms | frames superseded %.1f/s%n",
                r.decodeMs(), r.queueMs(), detector, r.meanBatch(), r.publishToReceiptMs(), r.supersededPerSecond());
        FineTuneFigures f = r.fineTune();
        if (f != null) {
            out.printf(Locale.ROOT, "  fine-tune beside it: %s %s (%s), %d updates in the window = %.1f images/s, loss scale %s, "
                            + "%d steps skipped%n", f.backend(), f.precision(), f.device(), f.iterations(), f.imagesPerSecond(),
                    f.lossScale(), f.skippedSteps());
        }
    }

    /** What training costs detection: live fps and p99 alone and beside a fine-tune, the p99 ratio against the bound. */
    private void compare(Result alone, Result beside) {
        double ratio = beside.p99Ms() / alone.p99Ms();
        boolean trained = beside.fineTune().iterations() > 0;
        out.printf(Locale.ROOT, "fine-tune cost, cameras %d: fps/camera %.1f -> %.1f | p50 %.1f -> %.1f ms | p99 %.1f -> %.1f ms "
                        + "| p99 with/without = %.2f (limit %.1f): %s%n", alone.cameras(), alone.decodeFpsMean(),
                beside.decodeFpsMean(), alone.p50Ms(), beside.p50Ms(), alone.p99Ms(), beside.p99Ms(), ratio,
                FINE_TUNE_P99_LIMIT, !trained ? "FAIL (no training update in the window)"
                        : ratio <= FINE_TUNE_P99_LIMIT ? "PASS" : "FAIL");
    }

    private Result step(int n, Path video, double preprocessMs, boolean withFineTune) throws Exception {
        JsonArray cams = new JsonArray();
        for (int i = 0; i < n; i++) {
            cams.add(new JsonObject().put("id", "bench" + i).put("url", video.toString()).put("decoder", o.decoder));
        }
        JsonObject json = new JsonObject()
                .put("http", new JsonObject().put("host", "127.0.0.1").put("port", 0))
                .put("models", new JsonArray().add(new JsonObject().put("id", "bench").put("cfg", o.cfg.toString())
                        .put("backend", o.backend)
                        .put("width", o.netSize).put("height", o.netSize).put("threshold", o.threshold)
                        .put("maxBatch", o.maxBatch).put("maxWaitMs", o.maxWaitMs).put("maxDetections", 100)
                        .put("cuda", new JsonObject().put("device", o.device))))
                .put("cameras", cams)
                .put("camera", new JsonObject().put("poolFrames", 6))
                .put("snapshots", new JsonObject().put("fps", o.snapshotFps))
                .put("cacheDir", o.cacheDir.toString());
        ArgusConfig config = ArgusConfig.read(o.cacheDir.resolve("bench.yaml"), json, Map.of());
        ArgusApp app = ArgusApp.start(config).get(300, TimeUnit.SECONDS);
        Vertx client = Vertx.vertx();
        DeviceSampler sampler = new DeviceSampler(o.device);
        BackgroundFineTune training = null;
        try {
            LatencyRecorder rec = new LatencyRecorder();
            WebSocketClient wsc = client.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(1 << 20).setMaxMessageSize(1 << 22));
            WebSocket ws = wsc.connect(app.httpPort(), "127.0.0.1", "/ws?includeEmpty=true")
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            ws.textMessageHandler(rec::accept);
            if (withFineTune) {
                // the model's seed: the start weights equal the served ones, as a fine-tune of the serving version
                training = BackgroundFineTune.start(o.fineTune, o.cfg, o.netSize, o.netSize, 1, o.cacheDir.resolve("bench-fine-tune"));
                if (!training.awaitFirstIteration(600)) {
                    throw new IllegalStateException("the fine-tune did not complete an update within 600 s"
                            + (training.failure() != null ? ": " + training.failure() : ""), training.failure());
                }
            }
            // the window measures cameras that stream: it begins once each has its first picture (NVDEC sessions
            // are created one after another by the driver, ~70 ms each on an H200, so 200 cameras take ~13 s), then
            // the warm-up; how long the first pictures took is printed apart
            long begin = System.nanoTime();
            double startSeconds = awaitFirstPictures(app, n, begin);
            out.printf(Locale.ROOT, "  first picture of every camera %.1f s after the app was up%s%n", startSeconds,
                    startSeconds >= DecodeCeiling.START_LIMIT_SECONDS ? " (some had none; measured anyway)" : "");
            Thread.sleep((long) (o.warmupSeconds * 1000));

            Snapshot a = snapshot(app);
            long trainedBefore = training != null ? training.iterations() : 0;
            int gpuMark = sampler.mark();
            double rssStart = DeviceSampler.rssMiB();
            ThreadCpu threadCpu = new ThreadCpu();
            long[] steps = io.argus.pipeline.video.nvdec.DecodeSteps.snapshot();
            ThreadStates cameraThreads = new ThreadStates("argus-camera-", 50);
            rec.start();
            window(app, a, sampler, gpuMark);
            rec.stop();
            cameraThreads.close();
            Snapshot b = snapshot(app);
            out.printf(Locale.ROOT, "  CPU by thread (%% of a core): %s%n",
                    threadCpu.since((b.nanos - a.nanos) / 1e9, b.cpuNanos - a.cpuNanos, 6));
            out.printf(Locale.ROOT, "  CPU by OS thread (%% of a core): %s%n", threadCpu.osSince((b.nanos - a.nanos) / 1e9, 10));
            out.printf(Locale.ROOT, "  WebSocket: %.1f boxes per detection message%n", rec.boxesPerMessage());
            // what the worst latencies were made of (a picture's decode includes a new session's wait for its turn)
            out.printf(Locale.ROOT, "  slowest messages: %s; reconnects in the window %d; longest wait for a camera's "
                    + "first picture %.0f ms (at the window's start), %.0f ms (at its end)%n", rec.slowest(),
                    b.reconnects - a.reconnects, a.firstPictureMs, b.firstPictureMs);
            out.printf(Locale.ROOT, "  camera threads' wall time (sampled): %s%n", cameraThreads.summary(8));
            if (o.decoder.equals("nvdec")) {
                out.printf(Locale.ROOT, "  NVDEC decoder steps: %s%n", io.argus.pipeline.video.nvdec.DecodeSteps.perPicture(
                        steps, io.argus.pipeline.video.nvdec.DecodeSteps.snapshot()));
            }
            double[] gpuUse = sampler.since(gpuMark);
            Usage usage = new Usage(gpuUse[0], gpuUse[1], gpuUse[2], rssStart, DeviceSampler.rssMiB());
            FineTuneFigures figures = null;
            if (training != null) {
                if (training.failure() != null) throw new IllegalStateException("the fine-tune failed: " + training.failure(), training.failure());
                long updates = training.iterations() - trainedBefore;
                figures = new FineTuneFigures(training.backend(), training.precision(), training.device(), updates,
                        updates * training.imagesPerIteration() / ((b.nanos - a.nanos) / 1e9), training.lossScale(),
                        training.skippedSteps());
            }
            ws.close();
            wsc.close();

            double wall = (b.nanos - a.nanos) / 1e9;
            double[] fps = new double[n];
            for (int i = 0; i < n; i++) fps[i] = (b.decoded[i] - a.decoded[i]) / wall;
            double mean = Arrays.stream(fps).average().orElse(0);
            double min = Arrays.stream(fps).min().orElse(0);
            double[] sortedFps = fps.clone();
            Arrays.sort(sortedFps);
            out.printf(Locale.ROOT, "  decode per camera: min %.1f, 5th percentile %.1f, median %.1f fps; cameras under 95%% "
                    + "of %d fps: %d%n", min, percentile(sortedFps, 0.05), percentile(sortedFps, 0.5), o.fps,
                    Arrays.stream(fps).filter(f -> f < 0.95 * o.fps).count());
            long frames = b.model.frames() - a.model.frames();
            long batches = b.model.batches() - a.model.batches();
            double cpu = (b.cpuNanos - a.cpuNanos) / 1e9 / wall * 100;
            double[] lat = rec.latencies();
            Arrays.sort(lat);
            // sustained: every camera decodes at >= 95% of its rate, >= 95% of the decoded frames are detected (the
            // rest superseded under load: latest frame wins), and p99 < 150 ms
            double detectedPerCamera = frames / wall / n;
            boolean sustained = min >= 0.95 * o.fps && detectedPerCamera >= 0.95 * mean && lat.length > 0
                    && percentile(lat, 0.99) < 150;
            return new Result(n, mean, min, detectedPerCamera, percentile(lat, 0.5), percentile(lat, 0.99),
                    lat.length > 0 ? lat[lat.length - 1] : Double.NaN, lat.length, cpu / n, cpu,
                    frames > 0 ? (b.model.decodeNanos() - a.model.decodeNanos()) / 1e6 / frames : Double.NaN,
                    frames > 0 ? (b.model.queueNanos() - a.model.queueNanos()) / 1e6 / frames : Double.NaN,
                    preprocessMs,
                    batches > 0 ? (b.model.inferenceNanos() - a.model.inferenceNanos()) / 1e6 / batches : Double.NaN,
                    batches > 0 ? frames / (double) batches : Double.NaN,
                    rec.meanPublishToReceipt(), (b.superseded - a.superseded) / wall, sustained, figures,
                    String.valueOf(app.models().get(0).stats().backend()).startsWith("cuda"), o.decoder, b.onNvdec,
                    gpuStages(a.model, b.model), usage);
        } finally {
            sampler.close();
            if (training != null) training.close();
            app.closeAndWait();
            client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** {@code firstPictureMs}: the longest any camera's last connection took to its first picture. */
    /** Seconds from {@code begin} until every camera decoded a picture, at most {@link DecodeCeiling#START_LIMIT_SECONDS}. */
    private double awaitFirstPictures(ArgusApp app, int n, long begin) throws Exception {
        long deadline = begin + (long) (DecodeCeiling.START_LIMIT_SECONDS * 1e9);
        while (System.nanoTime() < deadline) {
            long[] decoded = snapshot(app).decoded();
            if (decoded.length == n && Arrays.stream(decoded).allMatch(d -> d > 0)) return (System.nanoTime() - begin) / 1e9;
            Thread.sleep(100);
        }
        return DecodeCeiling.START_LIMIT_SECONDS;
    }

    private record Snapshot(long nanos, long cpuNanos, long[] decoded, long superseded, int onNvdec, long reconnects,
                            double firstPictureMs, ModelCounters model) {}

    /** Copies of the model's monotonic counters. */
    private record ModelCounters(long frames, long batches, long inferenceNanos, long queueNanos, long decodeNanos,
                                 long timedBatches, long gpuInputNanos, long gpuNetworkNanos, long gpuPostNanos) {
        static ModelCounters of(ModelStats s) {
            return new ModelCounters(s.frames(), s.batches(), s.inferenceNanos(), s.queueNanos(), s.decodeNanos(),
                    s.timedBatches(), s.gpuInputNanos(), s.gpuNetworkNanos(), s.gpuPostNanos());
        }
    }

    private static GpuStages gpuStages(ModelCounters a, ModelCounters b) {
        long n = b.timedBatches() - a.timedBatches();
        if (n <= 0) return new GpuStages(Double.NaN, Double.NaN, Double.NaN);
        return new GpuStages((b.gpuInputNanos() - a.gpuInputNanos()) / 1e6 / n,
                (b.gpuNetworkNanos() - a.gpuNetworkNanos()) / 1e6 / n, (b.gpuPostNanos() - a.gpuPostNanos()) / 1e6 / n);
    }

    /**
     * The measured window. Longer windows (two minutes and more: the memory run) print a line a minute, so memory
     * that creeps shows as a trend and not only as two end points.
     */
    private void window(ArgusApp app, Snapshot start, DeviceSampler sampler, int gpuMark) throws Exception {
        long end = System.nanoTime() + (long) (o.seconds * 1e9);
        if (o.seconds < 120) {
            Thread.sleep((long) (o.seconds * 1000));
            return;
        }
        Snapshot last = start;
        int mark = gpuMark;
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) return;
            Thread.sleep(Math.min(60_000, left / 1_000_000 + 1));
            Snapshot now = snapshot(app);
            double[] gpu = sampler.since(mark);
            mark = sampler.mark();
            double wall = (now.nanos - last.nanos) / 1e9;
            long decoded = 0;
            for (int i = 0; i < now.decoded.length; i++) decoded += now.decoded[i] - last.decoded[i];
            out.printf(Locale.ROOT, "  at %.0f s: decode %.1f fps/camera, detected %.1f/s per camera | GPU %s, NVDEC %s | "
                            + "GPU memory %s MiB | resident %.0f MiB%n", (now.nanos - start.nanos) / 1e9,
                    decoded / wall / now.decoded.length, (now.model.frames() - last.model.frames()) / wall / now.decoded.length,
                    DeviceSampler.percent(gpu[0]), DeviceSampler.percent(gpu[1]),
                    Double.isNaN(gpu[2]) ? "n/a" : String.format(Locale.ROOT, "%.0f", gpu[2]), DeviceSampler.rssMiB());
            out.flush();
            last = now;
        }
    }

    private Snapshot snapshot(ArgusApp app) throws Exception {
        List<CameraStatus> cams = app.cameras().list().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long[] decoded = new long[cams.size()];
        long reconnects = 0;
        double firstPictureMs = 0;
        long superseded = 0;
        int onNvdec = 0;
        for (int i = 0; i < cams.size(); i++) {
            JsonObject c = cams.get(i).json();
            decoded[Integer.parseInt(c.getString("id").substring(5))] = c.getLong("framesDecoded");
            superseded += c.getJsonObject("dropped").getLong("superseded");
            reconnects += c.getLong("reconnects", 0L);
            firstPictureMs = Math.max(firstPictureMs, c.getDouble("firstPictureMs", 0.0));
            if ("nvdec".equals(c.getString("decoderInUse"))) onNvdec++;
        }
        InferenceVerticle m = app.models().get(0);
        return new Snapshot(System.nanoTime(), processCpuNanos(), decoded, superseded, onNvdec, reconnects,
                firstPictureMs, ModelCounters.of(m.stats()));
    }

    static long processCpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean s) return s.getProcessCpuTime();
        return 0;
    }

    /** The p-quantile (0..1) of sorted values, nearest rank; NaN for none. */
    public static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.clamp(i, 0, sorted.length - 1)];
    }

    /** Latency of each detection message at the WebSocket client: receipt - (captureTime - decodeMs). */
    static final class LatencyRecorder {
        private volatile boolean recording;
        private final List<Double> latencies = new ArrayList<>();
        private double publishToReceiptSum;
        private long boxCount;
        private final java.util.PriorityQueue<Slow> slowest = new java.util.PriorityQueue<>(
                java.util.Comparator.comparingDouble(Slow::ms));

        /** One slow message: its camera and frame, its latency and the decode time inside it. */
        record Slow(String camera, long frame, double ms, double decodeMs) {}

        synchronized String slowest() {
            List<Slow> s = new ArrayList<>(slowest);
            s.sort(java.util.Comparator.comparingDouble(Slow::ms).reversed());
            List<String> parts = new ArrayList<>();
            for (Slow x : s) {
                parts.add(String.format(Locale.ROOT, "%s frame %d %.1f ms (decode %.1f ms)", x.camera(), x.frame(),
                        x.ms(), x.decodeMs()));
            }
            return parts.isEmpty() ? "none" : String.join(", ", parts);
        }

        synchronized double boxesPerMessage() { return latencies.isEmpty() ? Double.NaN : (double) boxCount / latencies.size(); }

        synchronized void accept(String text) {
            if (!recording) return;
            double now = nowMs();
            JsonObject m = new JsonObject(text);
            if (!"detections".equals(m.getString("type"))) return;
            JsonObject lat = m.getJsonObject("latency");
            double capture = m.getDouble("captureTime");
            double ms = now - capture + lat.getDouble("decodeMs");
            latencies.add(ms);
            if (slowest.size() < 3 || ms > slowest.peek().ms()) {
                slowest.add(new Slow(m.getString("cameraId"), m.getLong("frame", -1L), ms, lat.getDouble("decodeMs")));
                if (slowest.size() > 3) slowest.poll();
            }
            JsonArray boxes = m.getJsonArray("detections");
            if (boxes != null) boxCount += boxes.size();
            publishToReceiptSum += now - capture - lat.getDouble("totalMs");
        }

        void start() { recording = true; }

        void stop() { recording = false; }

        synchronized double[] latencies() { return latencies.stream().mapToDouble(Double::doubleValue).toArray(); }

        synchronized double meanPublishToReceipt() { return latencies.isEmpty() ? Double.NaN : publishToReceiptSum / latencies.size(); }
    }

    static double nowMs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1000.0 + now.getNano() / 1e6;
    }

    /** Median ms of the detector's pre-processing (Darknet resize to the network input) for one decoded frame. */
    private double preprocessMs(Path video) throws Exception {
        NetworkSpec spec = NetworkSpec.load(o.cfg, o.netSize, o.netSize);
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
            g.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
            g.start();
            Frame f = g.grabImage();
            ByteBuffer copy = ByteBuffer.allocateDirect(f.imageStride * f.imageHeight);
            copy.put(0, (ByteBuffer) f.image[0], 0, copy.capacity());
            BgrImage img = new BgrImage(f.imageWidth, f.imageHeight, f.imageStride, copy);
            FloatBuffer input = ByteBuffer.allocateDirect(4 * spec.inputShape().size()).asFloatBuffer();
            Preprocess p = new Preprocess();
            double[] ms = new double[25];
            for (int i = 0; i < 5; i++) p.into(img, o.netSize, o.netSize, spec.net().letterBox(), input, 0);
            for (int i = 0; i < ms.length; i++) {
                long t0 = System.nanoTime();
                p.into(img, o.netSize, o.netSize, spec.net().letterBox(), input, 0);
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(ms);
            return ms[ms.length / 2];
        }
    }

    /**
     * The benchmark video (H.264, {@code width} x {@code height} at {@code fps}, 20 s), made once per cache dir:
     * ffmpeg's testsrc2 pattern (libx264) when the ffmpeg CLI exists, else JavaCV's openh264 at 4 Mbit/s.
     */
    public Path video() throws IOException, InterruptedException {
        Files.createDirectories(o.cacheDir);
        Path v = o.cacheDir.resolve("bench-" + o.width + "x" + o.height + "-" + o.fps + "fps.mp4");
        if (Files.isRegularFile(v) && Files.size(v) > 0) return v;
        Path tmp = o.cacheDir.resolve(v.getFileName() + ".tmp.mp4");
        try {
            Process p = new ProcessBuilder("ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=" + o.width + "x" + o.height + ":rate=" + o.fps, "-t", "20", "-c:v", "libx264",
                    "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", Integer.toString(o.fps), tmp.toString())
                    .redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            if (p.waitFor() != 0) throw new IOException("ffmpeg failed");
        } catch (IOException e) {
            synthetic(tmp);
        }
        Files.move(tmp, v);
        return v;
    }

    private void synthetic(Path file) throws IOException {
        try (FFmpegFrameRecorder r = new FFmpegFrameRecorder(file.toFile(), o.width, o.height, 0)) {
            r.setFormat("mp4");
            r.setFrameRate(o.fps);
            r.setVideoCodec(avcodec.AV_CODEC_ID_H264);
            r.setVideoCodecName("libopenh264");
            r.setPixelFormat(avutil.AV_PIX_FMT_YUV420P);
            r.setVideoBitrate(4_000_000);
            r.start();
            Frame f = new Frame(o.width, o.height, Frame.DEPTH_UBYTE, 3);
            ByteBuffer px = (ByteBuffer) f.image[0];
            for (int i = 0; i < o.fps * 20; i++) {
                for (int y = 0; y < o.height; y++) {
                    for (int x = 0; x < o.width; x++) {
                        int p = y * f.imageStride + 3 * x;
                        px.put(p, (byte) (x + i * 4));
                        px.put(p + 1, (byte) (y + i * 2));
                        px.put(p + 2, (byte) ((x ^ y) + i));
                    }
                }
                r.record(f, avutil.AV_PIX_FMT_BGR24);
            }
            r.stop();
        } catch (Exception e) {
            throw new IOException("cannot write the benchmark video: " + e.getMessage(), e);
        }
    }
}
