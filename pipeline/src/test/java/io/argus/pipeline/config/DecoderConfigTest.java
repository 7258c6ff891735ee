package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.video.DecoderMode;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cameras[].decoder: auto|cpu|nvdec}: default, spelling, a bad value's message, and the JSON round trip; and
 * {@code cameras[].decodeDevice}, which must be one of the camera's model's GPUs.
 */
@Budget(seconds = 5)
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

    private static JsonObject onGpus(JsonObject json, io.vertx.core.json.JsonArray devices) {
        json.getJsonArray("models").getJsonObject(0).put("cuda", new JsonObject().put("devices", devices));
        return json;
    }

    @Test
    void aDecodeDeviceIsOneOfTheModelsGpusAndTravelsWithTheCamera() throws Exception {
        JsonObject json = onGpus(TestConfig.base(), new io.vertx.core.json.JsonArray().add(0).add(1));
        json.getJsonArray("cameras").add(TestConfig.camera("a", "rtsp://h/s").put("decodeDevice", 1))
                .add(TestConfig.camera("b", "rtsp://h/t"));
        ArgusConfig c = ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of());
        assertEquals(1, c.cameras().get(0).decodeDevice());
        assertEquals(-1, c.cameras().get(1).decodeDevice(), "none: NvdecPlacement chooses");
        assertEquals(1, c.cameras().get(0).toJson().getInteger("decodeDevice"));
        assertTrue(!c.cameras().get(1).toJson().containsKey("decodeDevice"));
        CameraConfig back = CameraConfig.fromJson(c.cameras().get(0).definition(), java.util.List.of("tiny"), tmp);
        assertEquals(1, back.decodeDevice());
    }

    @Test
    void aDecodeDeviceTheModelDoesNotRunOnIsRefused() throws Exception {
        JsonObject json = onGpus(TestConfig.base(), new io.vertx.core.json.JsonArray().add(0).add(1));
        json.getJsonArray("cameras").add(TestConfig.camera("a", "rtsp://h/s").put("decodeDevice", 2));
        ConfigException e = assertThrows(ConfigException.class, () -> ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of()));
        assertEquals("cameras[0].decodeDevice: expected one of model \"tiny\"'s GPUs (cuda devices 0, 1), found 2",
                e.getMessage());
        JsonObject oneGpu = TestConfig.base();
        oneGpu.getJsonArray("cameras").add(TestConfig.camera("a", "rtsp://h/s").put("decodeDevice", 1));
        assertEquals("cameras[0].decodeDevice: expected one of model \"tiny\"'s GPUs (cuda devices 0), found 1",
                assertThrows(ConfigException.class, () -> ArgusConfig.read(tmp.resolve("x.yaml"), oneGpu, Map.of()))
                        .getMessage());
        JsonObject all = TestConfig.base();
        all.getJsonArray("models").getJsonObject(0).put("cuda", new JsonObject().put("devices", "all"));
        all.getJsonArray("cameras").add(TestConfig.camera("a", "rtsp://h/s").put("decodeDevice", 7));
        assertEquals(7, ArgusConfig.read(tmp.resolve("x.yaml"), all, Map.of()).cameras().get(0).decodeDevice(),
                "devices: all takes any index (a device the host lacks fails when the camera opens)");
    }
}
