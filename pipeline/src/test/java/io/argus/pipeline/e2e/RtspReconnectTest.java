package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real RTSP server (GStreamer's gst-rtsp-server from Debian packages) feeds two cameras, one over TCP and one over
 * UDP. The server is killed mid-stream and started again: both cameras reconnect and detections resume without
 * restarting Argus. Prints the reconnect times.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 25)
class RtspReconnectTest {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    static boolean gstRtspServerAvailable() {
        if (!Files.isExecutable(PYTHON)) return false;
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c",
                    "import gi; gi.require_version('GstRtspServer', '1.0'); from gi.repository import GstRtspServer")
                    .redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    static Process startServer(int port, Path video) throws Exception {
        Path script = Path.of(RtspReconnectTest.class.getResource("/rtsp_server.py").toURI());
        Process[] started = {null};
        // tried again every 250 ms: the port of a server just killed may still be held for a moment
        Waits.waitFor(() -> {
            Process p = new ProcessBuilder(PYTHON.toString(), script.toString(), Integer.toString(port), video.toString())
                    .redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
            String line = out.readLine();
            if (!"READY".equals(line)) {
                p.destroyForcibly().waitFor();
                return false;
            }
            io.argus.testkit.ProcessOutput.discard(out, "rtsp-server-output");
            started[0] = p;
            return true;
        }, 20_000, 250, "the RTSP server to start on port " + port);
        return started[0];
    }

    @Test
    void camerasReconnectAfterTheServerIsKilledAndRestarted() throws Exception {
        assumeTrue(gstRtspServerAvailable(), "needs /usr/bin/python3 with python3-gi and gir1.2-gst-rtsp-server-1.0");
        Path video = TestMedia.h264(320, 240, 15, 60);
        int port = TestMedia.freePort();
        String url = "rtsp://127.0.0.1:" + port + "/test";
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("tcp", url).put("transport", "tcp"))
                .add(TestConfig.camera("udp", url).put("transport", "udp"));
        Process server = startServer(port, video);
        try (RunningApp app = new RunningApp(TestConfig.read(json));
             WsClient ws = app.ws("/ws?cameras=tcp,udp&includeEmpty=true")) {
            for (String cam : new String[]{"tcp", "udp"}) {
                ws.await(m -> cam.equals(m.getString("cameraId")), Duration.ofSeconds(60), "first detections of " + cam);
            }
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL mid-stream
            double killedAt = now();
            Waits.waitFor(() -> !"streaming".equals(app.camera("tcp").getString("state"))
                    && !"streaming".equals(app.camera("udp").getString("state")), 15_000, "both cameras noticing the loss");
            double noticedMs = now() - killedAt;
            Pace.holdMillis(1500, "the server down for a while: the cameras keep retrying with backoff");
            // while it fails, the status says why and when it tries again
            Waits.waitFor(() -> app.camera("tcp").containsKey("nextRetryInMs"), 10_000, "the camera's next retry");
            JsonObject down = app.camera("tcp");
            assertTrue(down.getString("lastError", "").contains("Connection refused"), down.encode());
            server = startServer(port, video);
            double restartedAt = now();
            double[] resumedMs = new double[2];
            String[] cams = {"tcp", "udp"};
            for (int i = 0; i < 2; i++) {
                String cam = cams[i];
                JsonObject m = ws.await(x -> cam.equals(x.getString("cameraId")) && x.getDouble("captureTime") > restartedAt,
                        Duration.ofSeconds(30), "detections of " + cam + " after the restart");
                resumedMs[i] = m.getDouble("captureTime") - restartedAt;
            }
            String report = String.format(Locale.ROOT, "RTSP reconnect: loss noticed %.0f ms after the kill; first frame after the "
                    + "server restart: tcp %.0f ms, udp %.0f ms (reconnects tcp=%d udp=%d)", noticedMs, resumedMs[0], resumedMs[1],
                    app.camera("tcp").getLong("reconnects"), app.camera("udp").getLong("reconnects"));
            System.out.println(report);
            assertTrue(resumedMs[0] < 15_000 && resumedMs[1] < 15_000, report);
            for (String cam : cams) {
                JsonObject back = app.camera(cam);
                assertNull(back.getString("lastError"), "streaming again, the last failure is gone: " + back.encode());
            }
            assertTrue(app.camera("tcp").getLong("reconnects") >= 1 && app.camera("udp").getLong("reconnects") >= 1, report);
        } finally {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    static double now() { return System.currentTimeMillis(); }
}
