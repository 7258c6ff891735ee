package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.video.DecoderMode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cameras[].decoder: auto|cpu|nvdec}: default, spelling, a bad value's message, and the JSON round trip. */
class DecoderConfigTest {
    @TempDir
    Path tmp;

    private CameraConfig camera(JsonObject cam) throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(cam);
        return ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of()).cameras().get(0);
    }

    @Test
    void defaultIsAutoAndAnyCaseIsRead() throws Exception {
        assertEquals(DecoderMode.AUTO, camera(TestConfig.camera("a", "rtsp://h/s")).decoder());
        assertEquals(DecoderMode.NVDEC, camera(TestConfig.camera("a", "rtsp://h/s").put("decoder", "NVDEC")).decoder());
        assertEquals(DecoderMode.CPU, camera(TestConfig.camera("a", "rtsp://h/s").put("decoder", "cpu")).decoder());
    }

    @Test
    void aBadValueNamesTheKeyAndTheChoices() throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("a", "rtsp://h/s").put("decoder", "gpu"));
        ConfigException e = assertThrows(ConfigException.class, () -> ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of()));
        assertEquals("cameras[0].decoder", e.key());
        assertTrue(e.getMessage().contains("expected one of auto, cpu, nvdec, found \"gpu\""), e.getMessage());
    }

    @Test
    void theDecoderTravelsWithTheCamera() throws Exception {
        CameraConfig c = camera(TestConfig.camera("a", "rtsp://h/s").put("decoder", "nvdec"));
        assertEquals("nvdec", c.toJson().getString("decoder"));
        CameraConfig back = CameraConfig.fromJson(c.definition(), java.util.List.of(c.model()), tmp);
        assertEquals(DecoderMode.NVDEC, back.decoder());
    }
}
