package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An imported ONNX model in the running pipeline ({@code format: onnx}): a file camera's frames are detected by a YOLOv8
 * exported by PyTorch (the detector's test model), the messages carry the model's class names from its metadata and a
 * version from the file's hash, and the model's status says what it is.
 */
@Budget(seconds = 30)
class OnnxModelPipelineTest {
    @Test
    void aYolov8OnnxModelDetectsACamerasFrames() throws Exception {
        Path onnx = TestMedia.home().resolve("detector/src/test/resources/onnx/tiny-yolov8.onnx");
        JsonObject json = TestConfig.base();
        JsonObject model = json.getJsonArray("models").getJsonObject(0);
        for (String k : new String[] {"cfg", "names", "width", "height", "seed"}) model.remove(k);
        model.put("model", onnx.toString()).put("threshold", 0.3).put("backend", "cpu");
        json.getJsonArray("cameras").add(TestConfig.camera("cam", TestMedia.h264(320, 240, 25, 4).toString()));
        try (RunningApp app = new RunningApp(TestConfig.read(json)); WsClient c = app.ws("/ws?cameras=cam")) {
            JsonObject m = c.await(x -> "detections".equals(x.getString("type")) && "cam".equals(x.getString("cameraId")),
                    Duration.ofSeconds(20), "detections of cam");
            assertEquals("tiny", m.getJsonObject("model").getString("id"));
            assertTrue(m.getJsonObject("model").getString("version").startsWith("sha256:"), m.encode());
            JsonArray ds = m.getJsonArray("detections");
            assertFalse(ds.isEmpty());
            for (Object o : ds) {
                JsonObject d = (JsonObject) o;
                assertTrue(List.of("person", "bicycle", "car").contains(d.getString("className")), d.encode());
                assertTrue(d.getDouble("confidence") >= 0.3, d.encode());
                JsonObject box = d.getJsonObject("box");
                assertTrue(box.getDouble("x") >= 0 && box.getDouble("x") + box.getDouble("w") <= 320.01, d.encode());
            }
            JsonObject status = app.get("/api/models").array().getJsonObject(0);
            assertEquals("onnx", status.getString("format"), status.encode());
            assertEquals(3, status.getInteger("classes"), status.encode());
        }
    }
}
