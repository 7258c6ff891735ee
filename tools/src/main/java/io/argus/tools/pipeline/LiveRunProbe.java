package io.argus.tools.pipeline;

import io.argus.pipeline.camera.SampleVideo;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Watches a separately started {@code argus run} from outside, as a dashboard would, for the GPU acceptance runs
 * (scripts/gpu/run-live.sh run16): connects to {@code /ws} as soon as the server listens, and reports the time from
 * the process start (given as epoch ms, taken by the script just before it started {@code argus run}) to the first
 * detection message and the first one with a box, then the capture-to-WebSocket latency of every message in the first
 * {@code seconds} after the first message: p50, p99, the worst (with when and which camera), how many exceeded a
 * limit. Capture-to-WebSocket = receipt - captureTime + decodeMs, i.e. from the start of the frame's decode (the same
 * clock and definition as {@code argus bench pipeline}). A main of its own, not an {@code argus} command: it measures
 * the application from outside and ships only in the GPU bundles.
 *
 * <pre>
 * LiveRunProbe --port P --start-ms EPOCH_MS [--seconds 120] [--limit-ms 200] [--label cold] [--csv FILE]
 *              [--token T] [--connect-seconds 900]
 * LiveRunProbe --prepare-sample CACHE_DIR     (generates the sample video there first, so a start does not time it)
 * </pre>
 * Prints one summary line starting with {@code live-run} and exits 0, or 1 when nothing arrived in time.
 */
public final class LiveRunProbe {
    /** One detection message as received. */
    record Received(double receivedMs, String camera, long frame, double latencyMs, int batchSize, int boxes,
                    double decodeMs, double queueMs, double inferenceMs) {}

    private final List<Received> received = new ArrayList<>();
    private double firstMessageMs = Double.NaN;
    private double firstBoxMs = Double.NaN;
    private int dropped;

    public static void main(String[] args) throws Exception {
        Map<String, String> a = options(args);
        if (a.containsKey("prepare-sample")) {
            Path video = SampleVideo.ensure(Path.of(a.get("prepare-sample")));
            System.out.println("sample video: " + video);
            System.exit(0);
        }
        int port = Integer.parseInt(required(a, "port"));
        double startMs = Double.parseDouble(required(a, "start-ms"));
        double seconds = Double.parseDouble(a.getOrDefault("seconds", "120"));
        double limitMs = Double.parseDouble(a.getOrDefault("limit-ms", "200"));
        int connectSeconds = Integer.parseInt(a.getOrDefault("connect-seconds", "900"));
        String label = a.getOrDefault("label", "run");
        Path csv = a.containsKey("csv") ? Path.of(a.get("csv")) : null;
        LiveRunProbe probe = new LiveRunProbe();
        int code = probe.watch(port, a.get("token"), connectSeconds, seconds);
        probe.report(System.out, label, startMs, seconds, limitMs);
        if (csv != null) probe.writeCsv(csv, startMs);
        System.exit(code);
    }

    /** Receives until {@code seconds} after the first detection message (or the connect/first-message deadline). */
    int watch(int port, String token, int connectSeconds, double seconds) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(1 << 20)
                    .setMaxMessageSize(1 << 22));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(connectSeconds);
            warmUp(vertx, client);
            String path = "/ws?includeEmpty=true" + (token != null && !token.isBlank() ? "&token=" + token : "");
            WebSocket ws = null;
            // the server listens only once every model is loaded: a cold start may take minutes
            while (ws == null && System.nanoTime() < deadline) {
                try {
                    ws = client.connect(port, "127.0.0.1", path).toCompletionStage().toCompletableFuture()
                            .get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    Thread.sleep(100);
                }
            }
            if (ws == null) {
                System.out.println("live-run: nothing listens on 127.0.0.1:" + port + " within " + connectSeconds + " s");
                return 1;
            }
            ws.textMessageHandler(this::accept);
            synchronized (this) {
                while (Double.isNaN(firstMessageMs) && System.nanoTime() < deadline) wait(100);
                if (Double.isNaN(firstMessageMs)) return 1;
                double end = firstMessageMs + seconds * 1000;
                for (double now = PipelineBenchmark.nowMs(); now < end; now = PipelineBenchmark.nowMs()) {
                    wait(Math.max(1, (long) Math.min(200, end - now)));
                }
            }
            ws.close();
            return 0;
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    synchronized void accept(String text) {
        double now = PipelineBenchmark.nowMs();
        JsonObject m = new JsonObject(text);
        String type = m.getString("type");
        if ("dropped".equals(type)) dropped++;
        if (!"detections".equals(type)) return;
        if (Double.isNaN(firstMessageMs)) {
            firstMessageMs = now;
            notifyAll();
        }
        int boxes = m.getJsonArray("detections").size();
        if (boxes > 0 && Double.isNaN(firstBoxMs)) firstBoxMs = now;
        JsonObject lat = m.getJsonObject("latency");
        received.add(new Received(now, m.getString("cameraId"), m.getLong("frame"),
                now - m.getDouble("captureTime") + lat.getDouble("decodeMs"), m.getInteger("batchSize", 0), boxes,
                lat.getDouble("decodeMs"), lat.getDouble("queueMs", Double.NaN), lat.getDouble("inferenceMs", Double.NaN)));
    }

    /**
     * Runs this probe's own receiving path (WebSocket client, JSON parsing) over 500 sample detection messages from a
     * local server first: otherwise the first real messages would carry the probe's class loading and interpretation
     * (30-60 ms measured on the 2-core machine) as if argus had been slow.
     */
    static void warmUp(Vertx vertx, WebSocketClient client) throws Exception {
        int count = 500;
        String message = io.argus.pipeline.publish.DetectionMessage.sample("warm-up").encode();
        // the server sends once the client asks ("go"): messages written before the client's handler is set are lost
        var server = vertx.createHttpServer().webSocketHandler(ws -> ws.textMessageHandler(go -> {
            for (int i = 0; i < count; i++) ws.writeTextMessage(message);
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LiveRunProbe scratch = new LiveRunProbe();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(count);
        WebSocket ws = client.connect(server.actualPort(), "127.0.0.1", "/").toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        ws.textMessageHandler(text -> {
            scratch.accept(text);
            all.countDown();
        });
        ws.writeTextMessage("go");
        if (!all.await(30, TimeUnit.SECONDS)) System.err.println("live-run: warm-up received " + (count - all.getCount()) + " of " + count);
        ws.close();
        server.close();
    }

    /** The summary line (and, when messages arrived, the per-camera rates). */
    synchronized void report(PrintStream out, String label, double startMs, double seconds, double limitMs) {
        if (received.isEmpty()) {
            out.printf(Locale.ROOT, "live-run %s: NO detection message (%.1f s after start)%n", label,
                    (PipelineBenchmark.nowMs() - startMs) / 1000);
            return;
        }
        double end = firstMessageMs + seconds * 1000;
        List<Received> window = received.stream().filter(r -> r.receivedMs() <= end).toList();
        double[] lat = window.stream().mapToDouble(Received::latencyMs).sorted().toArray();
        Received worst = window.stream().max(java.util.Comparator.comparingDouble(Received::latencyMs)).orElseThrow();
        long over = Arrays.stream(lat).filter(l -> l >= limitMs).count();
        Map<String, Integer> perCamera = new TreeMap<>();
        for (Received r : window) perCamera.merge(r.camera(), 1, Integer::sum);
        double span = Math.max(1e-3, (window.get(window.size() - 1).receivedMs() - firstMessageMs) / 1000);
        double meanBatch = window.stream().mapToInt(Received::batchSize).average().orElse(0);
        out.printf(Locale.ROOT, "live-run %s: cameras %d | start to first detection message %.2f s, to first box %s | "
                        + "first %.0f s: %d messages, %.1f fps/camera (min %.1f), mean batch %.1f | capture->WebSocket "
                        + "p50 %.1f ms p99 %.1f ms max %.1f ms (at +%.1f s, %s frame %d, batch %d) | >= %.0f ms: %d "
                        + "| dropped notices %d | %s%n",
                label, perCamera.size(), (firstMessageMs - startMs) / 1000,
                Double.isNaN(firstBoxMs) ? "none" : String.format(Locale.ROOT, "%.2f s", (firstBoxMs - startMs) / 1000),
                seconds, window.size(), window.size() / span / Math.max(1, perCamera.size()),
                perCamera.values().stream().mapToInt(Integer::intValue).min().orElse(0) / span, meanBatch,
                PipelineBenchmark.percentile(lat, 0.5), PipelineBenchmark.percentile(lat, 0.99), lat[lat.length - 1],
                (worst.receivedMs() - firstMessageMs) / 1000, worst.camera(), worst.frame(), worst.batchSize(), limitMs,
                over, dropped, lat[lat.length - 1] < limitMs ? "PASS (worst < " + (long) limitMs + " ms)"
                        : "FAIL (worst >= " + (long) limitMs + " ms)");
    }

    /**
     * Every message: seconds since the process start, camera, frame, latency, batch, boxes, and where the latency went
     * (decoding, waiting for the detector, the network; the rest is publishing and the WebSocket).
     */
    synchronized void writeCsv(Path file, double startMs) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write("secondsSinceStart,camera,frame,captureToWebSocketMs,batchSize,boxes,decodeMs,queueMs,inferenceMs\n");
            for (Received r : received) {
                w.write(String.format(Locale.ROOT, "%.3f,%s,%d,%.2f,%d,%d,%.2f,%.2f,%.2f%n",
                        (r.receivedMs() - startMs) / 1000, r.camera(), r.frame(), r.latencyMs(), r.batchSize(), r.boxes(),
                        r.decodeMs(), r.queueMs(), r.inferenceMs()));
            }
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> a = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: LiveRunProbe --port P --start-ms EPOCH_MS [--seconds S] "
                        + "[--limit-ms L] [--label X] [--csv FILE] [--token T] | --prepare-sample DIR; found " + args[i]);
            }
            a.put(args[i].substring(2), args[++i]);
        }
        return a;
    }

    private static String required(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null) throw new IllegalArgumentException("--" + key + " is required");
        return v;
    }
}
