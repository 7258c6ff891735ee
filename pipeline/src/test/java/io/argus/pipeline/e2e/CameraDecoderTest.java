package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code cameras[].decoder} where NVDEC cannot serve (here: the model runs on the CPU, on any machine): {@code auto}
 * decodes on the CPU and says why in the camera's status, counted; {@code nvdec} is refused with the reason and
 * delivers nothing (rather than quietly decoding on the CPU); {@code cpu} just decodes.
 *
 * <p>Budget: 25 s (17.9-18.2 s on AMD family 25 model 17, 2 cores, where it is the first to tune the model's
 * convolutions into the shared tuning cache and to encode its clip; 3.3 s once both are there).
 */
@Budget(seconds = 25)
class CameraDecoderTest {
    @Test
    void autoChoosesTheCpuDecoderUncountedAndNvdecIsRefusedWithTheReason() throws Exception {
        String video = TestMedia.h264(640, 360, 25, 8).toString();
        JsonObject json = TestConfig.base();
        json.getJsonArray("models").getJsonObject(0).put("backend", "cpu");
        json.getJsonArray("cameras").add(TestConfig.camera("auto", video))
                .add(TestConfig.camera("gpu", video).put("decoder", "nvdec"))
                .add(TestConfig.camera("cpu", video).put("decoder", "cpu"));
        try (RunningApp app = new RunningApp(TestConfig.read(json)); WsClient ws = app.ws("/ws?cameras=auto,cpu,gpu")) {
            ws.await(m -> "auto".equals(m.getString("cameraId")), Duration.ofSeconds(60), "detections of the auto camera");
            ws.await(m -> "cpu".equals(m.getString("cameraId")), Duration.ofSeconds(60), "detections of the cpu camera");

            JsonObject auto = app.camera("auto");
            assertEquals("cpu", auto.getString("decoderInUse"), auto.encode());
            // the model runs on the CPU: auto chose the CPU decoder, nothing fell back
            assertTrue(!auto.containsKey("nvdecFallbacks"), auto.encode());

            JsonObject cpu = app.camera("cpu");
            assertEquals("cpu", cpu.getString("decoderInUse"), cpu.encode());
            assertTrue(!cpu.containsKey("nvdecFallbacks"), cpu.encode());

            JsonObject gpu = app.camera("gpu");
            assertEquals("stopped", gpu.getString("state"), gpu.encode());
            assertTrue(gpu.getString("lastError").contains("camera gpu: NVDEC decoder refused (model_on_cpu)"), gpu.encode());
            assertEquals(0, gpu.getLong("framesDecoded"), gpu.encode());
            assertTrue(ws.messages.stream().noneMatch(m -> "gpu".equals(m.getString("cameraId"))), "no frame from the refused camera");
        }
    }
}
