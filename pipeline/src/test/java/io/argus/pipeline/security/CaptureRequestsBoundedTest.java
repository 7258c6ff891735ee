package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/training/frames} ("keep this camera's next frame") keeps nothing for a camera it cannot serve: 150
 * requests naming unique 60 KB cameras are 400 at once, 150 naming unique unknown cameras 404 at once, and afterwards
 * no request waits and the collector tap holds no camera (the dataset's {@code captures} counters, read through the
 * API). Requests for a real camera that sends no frame (an RTSP camera nobody serves) wait, at most 4 per client and
 * 32 in all (429 with the reason beyond), and end with 404 when the camera is removed, leaving nothing. A camera that
 * does send frames still gets one kept (201).
 * Budget: 25 s (one app with the 64x64 tiny model and a 5 fps file camera).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 25)
class CaptureRequestsBoundedTest {
    @TempDir
    static Path root;

    TrainingApi api;

    @BeforeAll
    void start() throws Exception {
        Path video = TestMedia.shapes(5);
        api = new TrainingApi(root.resolve("data"), json -> json.getJsonArray("cameras")
                .add(TestConfig.camera("shapes", video.toString()))
                .add(TestConfig.camera("silent", "rtsp://127.0.0.1:9/nobody")));
    }

    @AfterAll
    void stop() throws Exception {
        if (api != null) api.close();
    }

    @Test
    void invalidAndUnknownCamerasAreAnsweredAtOnceAndLeaveNothing() throws Exception {
        long t0 = System.nanoTime();
        for (int i = 0; i < 150; i++) {
            String name = ("camera" + i + "-" + "x".repeat(60 * 1024)).substring(0, 60 * 1024); // unique, 60 KB
            RunningApp.Response r = capture(name);
            assertEquals(400, r.status(), "60 KB camera name " + i + ": " + r.body().substring(0, Math.min(300, r.body().length())));
            assertTrue(r.json().getString("error").startsWith("camera: "), r.body().substring(0, Math.min(300, r.body().length())));
            assertTrue(r.body().length() < 1000, "the name is not repeated whole: " + r.body().length() + " characters");
        }
        for (int i = 0; i < 150; i++) {
            RunningApp.Response r = capture("nosuchcamera-" + i);
            assertEquals(404, r.status(), r.body());
        }
        System.out.printf("300 capture requests for invalid and unknown cameras answered in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        JsonObject captures = captures();
        assertEquals(0, captures.getInteger("waiting"), captures.encode());
        assertEquals(0, captures.getInteger("cameras"), "the collector tap keeps no camera: " + captures.encode());
    }

    @Test
    void waitingRequestsAreCappedAndEndWhenTheCameraGoesAway() throws Exception {
        // a camera that sends frames gets one kept
        Waits.waitFor(() -> capture("shapes").status() == 201, 20_000, "a frame of camera shapes kept on request");

        List<Future<HttpResponse<Buffer>>> waiting = new ArrayList<>();
        List<WebClient> clients = new ArrayList<>();
        for (int c = 0; c < 8; c++) { // 8 clients (addresses 127.0.0.10..17) x 4 requests: the cap in all
            WebClient web = WebClient.create(api.app.client, new WebClientOptions().setDefaultHost("127.0.0.1")
                    .setDefaultPort(api.app.port()).setLocalAddress("127.0.0." + (10 + c)), new PoolOptions().setHttp1MaxSize(8));
            clients.add(web);
            for (int i = 0; i < 4; i++) waiting.add(post(web, "silent"));
            if (c == 0) {
                Waits.waitFor(() -> captures().getInteger("waiting") == 4, 5_000, "4 requests of one client waiting");
                HttpResponse<Buffer> fifth = await(post(web, "silent"));
                assertEquals(429, fifth.statusCode(), fifth.bodyAsString());
                assertTrue(fifth.bodyAsString().contains("of this client"), fifth.bodyAsString());
            }
        }
        Waits.waitFor(() -> captures().getInteger("waiting") == 32, 5_000, "32 requests waiting");
        HttpResponse<Buffer> more = await(post(clients.get(0), "shapes"));
        RunningApp.Response other = capture("silent"); // a ninth client: the cap in all
        assertEquals(429, more.statusCode(), more.bodyAsString());
        assertEquals(429, other.status(), other.body());
        assertTrue(other.body().contains("(at most 32)"), other.body());
        assertEquals(1, captures().getInteger("cameras"), captures().encode());

        RunningApp.Response removed = api.send(HttpMethod.DELETE, "/api/cameras/silent", null, null);
        assertEquals(200, removed.status(), removed.body());
        for (Future<HttpResponse<Buffer>> f : waiting) {
            HttpResponse<Buffer> r = await(f);
            assertEquals(404, r.statusCode(), r.bodyAsString());
            assertTrue(r.bodyAsString().contains("was removed"), r.bodyAsString());
        }
        JsonObject captures = captures();
        assertEquals(0, captures.getInteger("waiting"), captures.encode());
        assertEquals(0, captures.getInteger("cameras"), captures.encode());
    }

    RunningApp.Response capture(String camera) throws Exception {
        return api.json(HttpMethod.POST, "/api/training/frames", new JsonObject().put("camera", camera));
    }

    Future<HttpResponse<Buffer>> post(WebClient web, String camera) {
        return web.post("/api/training/frames").putHeader("Authorization", "Bearer " + api.app.token())
                .putHeader("content-type", "application/json")
                .sendBuffer(Buffer.buffer(new JsonObject().put("camera", camera).encode()));
    }

    static HttpResponse<Buffer> await(Future<HttpResponse<Buffer>> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** The dataset's capture counters: requests waiting for a frame, cameras the collector tap holds. */
    JsonObject captures() throws Exception {
        RunningApp.Response r = api.get("/api/training/dataset");
        if (r.status() != 200) throw new AssertionError("dataset: " + r.status() + " " + r.body());
        JsonObject c = r.json().getJsonObject("captures");
        if (c == null) throw new AssertionError("no capture counters in " + r.body());
        return c;
    }
}
