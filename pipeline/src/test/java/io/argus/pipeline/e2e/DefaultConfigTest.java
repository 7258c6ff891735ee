package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus run} with no arguments on a fresh machine: the bundled config/argus.yaml generates its sample video
 * into an empty cache directory and weights from the seed, and detections flow to WebSocket clients.
 */
class DefaultConfigTest {
    @TempDir
    Path cache;

    @Test
    void theBundledConfigRunsOnAFreshMachine() throws Exception {
        Map<String, String> env = Map.of("ARGUS_HTTP_PORT", "0", "ARGUS_HTTP_HOST", "127.0.0.1",
                "ARGUS_CACHE_DIR", cache.toString());
        ArgusApp app = ArgusApp.start(TestMedia.home().resolve("config/argus.yaml"), env).get(180, TimeUnit.SECONDS);
        Vertx client = Vertx.vertx();
        try (WsClient ws = WsClient.connect(client, app.httpPort(), "/ws?cameras=sample", null, 0)) {
            JsonObject m = ws.await(x -> "detections".equals(x.getString("type")), Duration.ofSeconds(90), "detections of the sample camera");
            assertEquals("sample", m.getString("cameraId"));
            assertEquals("default", m.getJsonObject("model").getString("id"));
            assertFalse(m.getJsonArray("detections").isEmpty(), "the demo threshold keeps a few boxes");
            Path video = cache.resolve("sample-v1.mp4");
            assertTrue(Files.size(video) > 10_000, "the sample video was generated");
            try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
                g.start();
                assertEquals(640, g.getImageWidth());
                assertEquals(360, g.getImageHeight());
                assertTrue(g.getLengthInFrames() >= 25 * 3, "at least one photo's worth of frames: " + g.getLengthInFrames());
            }
        } finally {
            app.closeAndWait();
            client.close();
        }
    }
}
