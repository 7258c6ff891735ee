package io.argus.pipeline.e2e;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A camera whose server accepts the TCP connection and then never completes an RTSP answer (it trickles one header
 * byte every 200 ms, so FFmpeg's socket timeout never fires and {@code start()} would hang forever). Other cameras
 * must connect and stream meanwhile, the API must answer, and the watchdog must abandon the hung connect.
 */
@Budget(seconds = 20)
class HungCameraTest {
    /** Accepts connections and trickles an endless RTSP header line. */
    static final class TrickleServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0);
        final List<Socket> clients = new CopyOnWriteArrayList<>();
        volatile boolean open = true;

        TrickleServer() throws IOException {
            Thread t = new Thread(() -> {
                while (open) {
                    try {
                        Socket s = server.accept();
                        clients.add(s);
                        Thread w = new Thread(() -> trickle(s), "trickle");
                        w.setDaemon(true);
                        w.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "trickle-accept");
            t.setDaemon(true);
            t.start();
        }

        private void trickle(Socket s) {
            try {
                OutputStream out = s.getOutputStream();
                out.write("RTSP/1.0 200 OK\r\nX-Never-Ends: ".getBytes(StandardCharsets.US_ASCII));
                while (open) {
                    out.write('a');
                    out.flush();
                    Pace.holdMillis(200, "one header byte every 200 ms: never silent long enough to time out");
                }
            } catch (IOException | InterruptedException ignored) {
                // closed
            }
        }

        int port() { return server.getLocalPort(); }

        @Override
        public void close() throws IOException {
            open = false;
            server.close();
            for (Socket s : clients) s.close();
        }
    }

    @Test
    void aHungConnectBlocksNeitherOtherCamerasNorTheApi() throws Exception {
        String video = TestMedia.h264(640, 360, 25, 8).toString();
        JsonObject json = TestConfig.base();
        json.getJsonObject("camera").put("connectTimeoutMs", 3000);
        json.getJsonArray("cameras").add(TestConfig.camera("steady", video));
        try (RunningApp app = new RunningApp(TestConfig.read(json)); TrickleServer hang = new TrickleServer();
             WsClient ws = app.ws("/ws?cameras=steady,late")) {
            ws.await(m -> "steady".equals(m.getString("cameraId")), Duration.ofSeconds(60), "detections of the steady camera");

            long t0 = System.nanoTime();
            var added = app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("hung", "rtsp://127.0.0.1:" + hang.port() + "/live").encode());
            assertEquals(201, added.status(), added.body());
            assertTrue(ms(t0) < 2000, "adding a camera does not wait for its connection: " + ms(t0) + " ms");
            waitFor(() -> !hang.clients.isEmpty(), 5000, "the hung camera connected its socket");
            assertEquals("connecting", app.camera("hung").getString("state"));

            // A second camera connects while the first is stuck inside FFmpeg's open.
            long t1 = System.nanoTime();
            assertEquals(201, app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("late", video).encode()).status());
            waitFor(() -> "streaming".equals(app.camera("late").getString("state")), 4000, "the late camera streaming");
            double lateMs = ms(t1);
            assertEquals("connecting", app.camera("hung").getString("state"), "still hung when the other camera streamed");
            System.out.printf("late camera streaming %.0f ms after it was added, while the hung one was still connecting%n", lateMs);

            ws.messages.clear();
            ws.await(m -> "steady".equals(m.getString("cameraId")), Duration.ofSeconds(30), "steady detections during the hang");
            ws.await(m -> "late".equals(m.getString("cameraId")), Duration.ofSeconds(30), "late detections during the hang");
            long t2 = System.nanoTime();
            assertEquals(200, app.get("/api/cameras").status());
            assertTrue(ms(t2) < 1000, "the API answers during the hang: " + ms(t2) + " ms");

            // The watchdog gives up on the stuck open after connectTimeoutMs + 2 s and starts a fresh attempt.
            waitFor(() -> app.camera("hung").getLong("stalls") >= 1, 12_000, "the watchdog abandoning the hung connect");
            JsonObject hung = app.camera("hung");
            assertTrue(hung.getString("lastError").startsWith("connect did not return within"), hung.encode());
            assertTrue(hung.getLong("reconnects") >= 1, hung.encode());

            long t3 = System.nanoTime();
            assertEquals(200, app.call(HttpMethod.DELETE, "/api/cameras/hung", null).status());
            assertTrue(ms(t3) < 2000, "removing a hung camera is immediate: " + ms(t3) + " ms");
            assertEquals("streaming", app.camera("steady").getString("state"));
        }
    }

    static double ms(long t0) { return (System.nanoTime() - t0) / 1e6; }

}
