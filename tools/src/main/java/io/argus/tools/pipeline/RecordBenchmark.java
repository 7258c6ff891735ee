package io.argus.tools.pipeline;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.config.ArgusConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code argus bench record}: what recording costs beside detection. For each camera count, the whole app runs twice
 * on the same file cameras (H.264 paced in real time, detection on): recording off, then on. Measured over the window:
 * the process's CPU (the difference between the two runs, per recorded camera, is what recording costs), the disk
 * written (bytes of the recording directory), the recorder's books (packets received, written, dropped, lost) and the
 * cameras' decode rate (whether detection kept up). A count is sustained when every packet received was written or is
 * still queued, none dropped or lost, and every camera decoded at least 95 % of its frame rate.
 */
public final class RecordBenchmark {
    /** What one run measured. */
    public record Run(int cameras, boolean recording, double seconds, double cpuPercent, double recorderCpuPercent,
                      double diskMBps, long received, long written, long dropped, long lost, double minFps) {}

    private final PipelineBenchmark.Options o;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public RecordBenchmark(PipelineBenchmark.Options options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    public void run(int[] counts) throws Exception {
        Path video = new PipelineBenchmark(o, out).video();
        out.printf(Locale.ROOT, "video %s (%dx%d @ %d fps, H.264), model %s at %d, detection on; %d CPU cores%n",
                video.getFileName(), o.width(), o.height(), o.fps(), o.cfg().getFileName(), o.netSize(),
                Runtime.getRuntime().availableProcessors());
        int best = 0;
        for (int n : counts) {
            Run off = step(n, video, false);
            Run on = step(n, video, true);
            double perCamera = (on.cpuPercent() - off.cpuPercent()) / n;
            double writerPerCamera = on.recorderCpuPercent() / n;
            boolean sustained = on.dropped() == 0 && on.lost() == 0 && on.written() > 0
                    && on.received() - on.written() <= 2L * o.fps() * n && on.minFps() >= 0.95 * o.fps();
            out.printf(Locale.ROOT, "cameras %d: process CPU %.0f%% without recording, %.0f%% with (%+.1f%% of a core per camera; "
                            + "the recorders' own threads %.2f%% of a core per camera) | disk %.2f MB/s | packets received %d, "
                            + "written %d, dropped %d, lost %d | decode min %.1f fps | %s%n",
                    n, off.cpuPercent(), on.cpuPercent(), perCamera, writerPerCamera, on.diskMBps(), on.received(), on.written(),
                    on.dropped(), on.lost(), on.minFps(), sustained ? "SUSTAINED" : "not sustained");
            if (sustained) best = Math.max(best, n);
        }
        out.printf(Locale.ROOT, "largest camera count recorded with detection on, nothing lost and decode >= 95%% of %d fps: %d%n",
                o.fps(), best);
    }

    private Run step(int n, Path video, boolean record) throws Exception {
        Path dir = o.cacheDir().resolve("bench-recordings");
        deleteTree(dir);
        JsonArray cams = new JsonArray();
        for (int i = 0; i < n; i++) {
            cams.add(new JsonObject().put("id", "bench" + i).put("url", video.toString())
                    .put("record", new JsonObject().put("mode", record ? "continuous" : "off")));
        }
        JsonObject json = new JsonObject()
                .put("http", new JsonObject().put("host", "127.0.0.1").put("port", 0))
                .put("models", new JsonArray().add(new JsonObject().put("id", "bench").put("cfg", o.cfg().toString())
                        .put("backend", o.backend()).put("width", o.netSize()).put("height", o.netSize())
                        .put("threshold", o.threshold()).put("maxBatch", o.maxBatch()).put("maxWaitMs", o.maxWaitMs())))
                .put("cameras", cams)
                .put("snapshots", new JsonObject().put("fps", 0))
                .put("recording", new JsonObject().put("dir", dir.toString()).put("keepFreeBytes", 0))
                .put("cacheDir", o.cacheDir().toString());
        ArgusConfig config = ArgusConfig.read(o.cacheDir().resolve("bench.yaml"), json, Map.of());
        ArgusApp app = ArgusApp.start(config).get(300, TimeUnit.SECONDS);
        try {
            String base = "http://127.0.0.1:" + app.httpPort();
            Thread.sleep(Math.round(o.warmupSeconds() * 1000));   // the bench's own pacing: warm-up before measuring
            long t0 = System.nanoTime();
            long cpu0 = PipelineBenchmark.processCpuNanos();
            long writers0 = recorderCpuNanos();
            long bytes0 = treeBytes(dir);
            JsonObject books0 = get(base + "/api/recordings");
            Thread.sleep(Math.round(o.seconds() * 1000));   // the measured window
            long t1 = System.nanoTime();
            long cpu1 = PipelineBenchmark.processCpuNanos();
            long writers1 = recorderCpuNanos();
            long bytes1 = treeBytes(dir);
            JsonObject books1 = get(base + "/api/recordings");
            JsonArray cameras = new JsonArray(getText(base + "/api/cameras"));
            double wall = (t1 - t0) / 1e9;
            double minFps = Double.MAX_VALUE;
            for (Object c : cameras) minFps = Math.min(minFps, ((JsonObject) c).getDouble("fps", 0.0));
            return new Run(n, record, wall, 100.0 * (cpu1 - cpu0) / 1e9 / wall, 100.0 * (writers1 - writers0) / 1e9 / wall,
                    (bytes1 - bytes0) / 1e6 / wall,
                    delta(books0, books1, "received"), delta(books0, books1, "written"),
                    delta(books0, books1, "droppedQueueFull"), delta(books0, books1, "lostToErrors"), minFps);
        } finally {
            app.closeAndWait();
        }
    }

    /** CPU time of the recorders' writer threads ({@code argus-record-<camera>}), which live as long as the app. */
    private static long recorderCpuNanos() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("argus-record-")) sum += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
        }
        return sum;
    }

    /** The sum over cameras of a recorder counter's growth between two statuses. */
    private static long delta(JsonObject before, JsonObject after, String counter) {
        long sum = 0;
        JsonObject a = after.getJsonObject("cameras", new JsonObject());
        JsonObject b = before.getJsonObject("cameras", new JsonObject());
        for (String camera : a.fieldNames()) {
            sum += a.getJsonObject(camera).getLong(counter, 0L) - b.getJsonObject(camera, new JsonObject()).getLong(counter, 0L);
        }
        return sum;
    }

    private JsonObject get(String url) throws IOException, InterruptedException { return new JsonObject(getText(url)); }

    private String getText(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException(url + ": HTTP " + r.statusCode() + " " + r.body());
        return r.body();
    }

    private static long treeBytes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return 0;
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;   // deleted under the walk (retention)
                }
            }).sum();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
