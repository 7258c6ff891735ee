package io.argus.pipeline.camera;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A live RTSP camera (src/test/resources/rtsp_live_server.py: GStreamer encoding a test pattern as it is served, H.264
 * or HEVC, a keyframe every 1, 4 or 10 s) and a camera reader connected to it as Argus runs one (CPU decoder, the
 * watchdog every 250 ms as the camera verticle drives it): what the keyframe test and scripts/rtsp-keyframes.sh share.
 */
final class LiveRtspCamera implements AutoCloseable {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    private final Process server;
    final int port;

    private LiveRtspCamera(Process server, int port) {
        this.server = server;
        this.port = port;
    }

    /** Why the server cannot run here (no python3-gi, RTSP server or x264enc), or null. */
    static String missing() {
        if (!Files.isExecutable(PYTHON)) return "no " + PYTHON;
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import gi; gi.require_version('Gst', '1.0');"
                    + " gi.require_version('GstRtspServer', '1.0'); from gi.repository import Gst, GstRtspServer;"
                    + " Gst.init(None); assert Gst.ElementFactory.find('x264enc')").redirectErrorStream(true).start();
            boolean ok = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            return ok ? null : "needs /usr/bin/python3 with python3-gi, gir1.2-gst-rtsp-server-1.0 and x264enc";
        } catch (IOException | InterruptedException e) {
            return e.toString();
        }
    }

    /** Whether the server serves HEVC (GStreamer's x265enc). */
    static boolean hevc() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import gi; gi.require_version('Gst', '1.0');"
                + " from gi.repository import Gst; Gst.init(None); assert Gst.ElementFactory.find('x265enc')")
                .redirectErrorStream(true).start();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    static LiveRtspCamera start() throws Exception {
        Path script = Path.of(LiveRtspCamera.class.getResource("/rtsp_live_server.py").toURI());
        LiveRtspCamera[] started = {null};
        Waits.waitFor(() -> {
            int port = TestMedia.freePort();
            Process p = new ProcessBuilder(PYTHON.toString(), script.toString(), Integer.toString(port))
                    .redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
            String line;
            while ((line = out.readLine()) != null && !line.equals("READY")) { /* GStreamer's warnings */ }
            if (line == null) {
                p.destroyForcibly().waitFor();
                return false;
            }
            io.argus.testkit.ProcessOutput.discard(out, "rtsp-server-output");
            started[0] = new LiveRtspCamera(p, port);
            return true;
        }, 30_000, 250, "the live RTSP server to start");
        return started[0];
    }

    String url(String codec, int keyframeSeconds) {
        return "rtsp://127.0.0.1:" + port + "/" + codec + "/" + keyframeSeconds;
    }

    /** What one connection saw: its first picture (ms after the connection began; NaN: none), stalls, last error. */
    record FirstPicture(String codec, int keyframeSeconds, String transport, double connectMs, double firstPictureMs,
                        long stalls, String lastError) {}

    /**
     * Reads {@code codec}/{@code keyframeSeconds} over {@code transport} until its first picture or {@code waitMs},
     * with the product's camera settings except {@code camera} (e.g. a shorter firstFrameTimeoutMs).
     */
    FirstPicture firstPicture(String codec, int keyframeSeconds, String transport, JsonObject camera, long waitMs)
            throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("cam", url(codec, keyframeSeconds))
                .put("transport", transport).put("decoder", "cpu"));
        // the product's defaults (config/argus.yaml), then the case's
        json.put("camera", new JsonObject().mergeIn(camera));
        ArgusConfig config = TestConfig.read(json);
        CameraConfig c = config.cameras().getFirst();
        CameraStats stats = new CameraStats();
        CameraReader reader = new CameraReader(c, config.model(c.model()), c.source(), config.camera(),
                new FramePool(config.camera().poolFrames()), stats, VideoFrame::release);
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
        try {
            watchdog.scheduleAtFixedRate(() -> reader.watchdog(System.nanoTime()), 250, 250, TimeUnit.MILLISECONDS);
            reader.start();
            Waits.until(() -> !Double.isNaN(stats.lastFirstPictureMs()) || stats.stalls() > 0, waitMs, 20);
            return new FirstPicture(codec, keyframeSeconds, transport, stats.lastConnectMs, stats.lastFirstPictureMs(),
                    stats.stalls(), stats.lastError());
        } finally {
            watchdog.shutdownNow();
            reader.stop();
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.destroy();
        if (!server.waitFor(5, TimeUnit.SECONDS)) server.destroyForcibly().waitFor();
    }
}
