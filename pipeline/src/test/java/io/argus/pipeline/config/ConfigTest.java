package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.cli.ArgusCli;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config: defaults, environment overrides, and errors that name the key and the reason. */
@Budget(seconds = 10)
class ConfigTest {
    @TempDir
    Path tmp;

    @Test
    void bundledDefaultConfigIsValid() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            ArgusConfig c = ConfigLoader.load(vertx, TestMedia.home().resolve("config/argus.yaml"), Map.of())
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(8080, c.http().port());
            assertEquals("default", c.models().get(0).id());
            assertEquals(TestMedia.home().resolve("config/models/demo.weights"), c.models().get(0).weights(),
                    "the default serves the demo model");
            assertTrue(c.training().enabled(), "the default learns online");
            assertEquals(c.cacheDir().resolve("training"), c.training().dataDir());
            assertEquals(CameraUrl.Kind.SAMPLE, c.cameras().get(0).source().kind());
            assertEquals(1, c.cameras().size());
        } finally {
            vertx.close();
        }
    }

    @Test
    void environmentOverridesKeysByPath() throws Exception {
        Path video = TestMedia.h264(320, 180, 10, 1);
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("a", video.toString()));
        ArgusConfig c = ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of(
                "ARGUS_HTTP_PORT", "9191",
                "ARGUS_HTTP_TOKEN", "s3cret-of-16-chars",
                "ARGUS_MODELS_0_MAX_BATCH", "7",
                "ARGUS_CAMERA_RECONNECT_MAX_MS", "4321",
                "ARGUS_CAMERA_FIRST_FRAME_TIMEOUT_MS", "15000",
                "ARGUS_CAMERAS_1_ID", "b",
                "ARGUS_CAMERAS_1_URL", video.toString(),
                "ARGUS_HTTP_PROT", "1"));
        assertEquals(9191, c.http().port());
        assertEquals("s3cret-of-16-chars", c.http().token());
        assertEquals(7, c.models().get(0).maxBatch());
        assertEquals(4321, c.camera().reconnect().maxMs());
        assertEquals(15_000, c.camera().firstFrameTimeoutMs(), "the first picture's bound, apart from the stall's");
        assertEquals(2500, c.camera().stallTimeoutMs());
        assertEquals(2, c.cameras().size(), "ARGUS_CAMERAS_1_* adds a camera");
        assertEquals("b", c.cameras().get(1).id());
        assertEquals(java.util.List.of("ARGUS_HTTP_PROT"), c.unusedEnv(), "a typo in an override is reported");
    }

    @Test
    void envNamesFollowKeyPaths() {
        assertEquals("ARGUS_HTTP_PORT", ConfigNode.envName("http.port"));
        assertEquals("ARGUS_MODELS_0_MAX_WAIT_MS", ConfigNode.envName("models[0].maxWaitMs"));
    }

    @Test
    void badValuesNameTheKeyAndTheReason() throws Exception {
        assertError(j -> j.getJsonObject("http").put("port", "eighty"), "http.port", "expected an integer in 0..65535, found \"eighty\"");
        assertError(j -> j.getJsonObject("http").put("port", 70000), "http.port", "found 70000");
        assertError(j -> j.getJsonObject("http").put("prot", 1), "http.prot", "unknown key");
        assertError(j -> j.getJsonArray("models").getJsonObject(0).put("width", 100), "models[0].width", "multiple of 32");
        assertError(j -> j.getJsonArray("models").getJsonObject(0).put("cfg", "/nope.cfg"), "models[0].cfg", "no such file");
        assertError(j -> j.getJsonArray("models").getJsonObject(0).put("backend", "tpu"), "models[0].backend", "expected one of auto, cpu, cuda");
        assertError(j -> j.put("models", new JsonArray()), "models", "at least one model");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "concat:/etc/passwd|/etc/hosts")),
                "cameras[0].url", "unsupported camera URL scheme \"concat:\"");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "http://example.com/x.m3u8")),
                "cameras[0].url", "unsupported camera URL scheme \"http:\"");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s").put("model", "other")),
                "cameras[0].model", "unknown model \"other\"");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s")).add(TestConfig.camera("c", "rtsp://h/t")),
                "cameras[1].id", "duplicate camera id");
        assertError(j -> j.getJsonObject("camera").getJsonObject("reconnect").put("maxMs", 10), "camera.reconnect.maxMs", "must be >= initialMs");
        assertError(j -> j.getJsonObject("camera").put("pinnedFrames", "maybe"), "camera.pinnedFrames",
                "expected true or false, found \"maybe\"");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s").put("record",
                new io.vertx.core.json.JsonObject().put("mode", "always"))), "cameras[0].record.mode",
                "expected one of off, continuous, events, motion");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s").put("record",
                new io.vertx.core.json.JsonObject().put("mode", "motion").put("motionArea", 0))), "cameras[0].record.motionArea", "found 0");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s").put("record",
                new io.vertx.core.json.JsonObject().put("mode", "motion").put("motionThreshold", 256))),
                "cameras[0].record.motionThreshold", "found 256");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("c", "rtsp://h/s").put("record",
                new io.vertx.core.json.JsonObject().put("mode", "continuous").put("storage", "hdd"))), "cameras[0].record.storage",
                "expected one of main (recording.storage), found \"hdd\"");
        assertError(j -> j.put("recording", new io.vertx.core.json.JsonObject().put("dir", "/srv/rec").put("storage",
                new JsonArray().add(new io.vertx.core.json.JsonObject().put("name", "hdd").put("dir", "/srv/rec/hdd")))),
                "recording.storage[0].dir", "must not be, contain or lie inside the directory of storage \"main\"");
        assertError(j -> j.put("recording", new io.vertx.core.json.JsonObject().put("dir", "/srv/rec").put("storage",
                new JsonArray().add(new io.vertx.core.json.JsonObject().put("name", "hdd").put("dir", "/srv/a"))
                        .add(new io.vertx.core.json.JsonObject().put("name", "hdd").put("dir", "/srv/b")))),
                "recording.storage[1].name", "duplicate storage name \"hdd\"");
        assertError(j -> j.put("recording", new io.vertx.core.json.JsonObject().put("storage",
                new JsonArray().add(new io.vertx.core.json.JsonObject().put("name", "../x").put("dir", "/srv/a")))),
                "recording.storage[0].name", "expected a name");
        assertError(j -> j.getJsonArray("cameras").add(TestConfig.camera("bad id!", "rtsp://h/s")), "cameras[0].id", "expected a name of 1-64 letters");
    }

    @Test
    void anOnnxModelIsNamedByModelWithItsHeadAndNoDarknetKeys() throws Exception {
        Path onnx = tmp.resolve("yolov8n.onnx");
        java.nio.file.Files.write(onnx, new byte[] {8});          // the config checks that it exists; start reads it
        java.util.function.Consumer<JsonObject> asOnnx = j -> {
            JsonObject m = j.getJsonArray("models").getJsonObject(0);
            for (String k : new String[] {"cfg", "width", "height", "seed"}) m.remove(k);
            m.put("model", onnx.toString()).put("head", "yolov8");
        };
        JsonObject json = TestConfig.base();
        asOnnx.accept(json);
        ModelConfig m = ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of()).models().get(0);
        assertEquals(ModelConfig.ONNX, m.format(), "format follows from model:");
        assertEquals(onnx, m.cfg());
        assertEquals(io.argus.detector.onnx.OnnxHead.Family.YOLOV8, m.head());
        assertError(asOnnx.andThen(j -> j.getJsonArray("models").getJsonObject(0).put("width", 640)), "models[0].width",
                "not used with format onnx: the graph holds its layers, weights and input size");
        assertError(asOnnx.andThen(j -> j.getJsonArray("models").getJsonObject(0).put("head", "yolov7")), "models[0].head",
                "expected one of auto, yolov5, yolov8, yolox, nms, found \"yolov7\"");
        assertError(asOnnx.andThen(j -> j.getJsonArray("models").getJsonObject(0).put("model", "/nope.onnx")),
                "models[0].model", "no such file");
        assertError(asOnnx.andThen(j -> j.getJsonArray("models").getJsonObject(0).put("format", "darknet")),
                "models[0].model", "only with format onnx (a Darknet model is cfg + weights)");
        assertError(j -> j.getJsonArray("models").getJsonObject(0).put("head", "yolov8"), "models[0].head",
                "only with format onnx");
        assertError(asOnnx.andThen(j -> j.put("training", new JsonObject().put("enabled", true))), "training.model",
                "\"tiny\" is an imported ONNX model, which online training cannot fine-tune");
    }

    private void assertError(java.util.function.Consumer<JsonObject> edit, String key, String reason) throws Exception {
        JsonObject json = TestConfig.base();
        edit.accept(json);
        ConfigException e = assertThrows(ConfigException.class, () -> ArgusConfig.read(tmp.resolve("x.yaml"), json, Map.of()));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), "expected \"" + reason + "\" in: " + e.getMessage());
    }

    @Test
    void invalidYamlFailsWithTheFileAndLine() throws Exception {
        Path f = tmp.resolve("broken.yaml");
        Files.writeString(f, "http:\n  port: 80\n   host: x\n");
        Vertx vertx = Vertx.vertx();
        try {
            ExecutionException e = assertThrows(ExecutionException.class, () -> ConfigLoader.load(vertx, f, Map.of())
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("broken.yaml"), e.getCause().getMessage());
            assertTrue(e.getCause().getMessage().contains("line"), e.getCause().getMessage());
        } finally {
            vertx.close();
        }
    }

    /**
     * The config fuzzer's find in a fresh root (seed config/boolean-key): a key YAML reads as a boolean. Vert.x
     * Config makes it the text "false", an unknown key; JSON with a non-text key (the fuzz harness reads YAML with
     * SnakeYAML directly) is refused by ArgusConfig.read itself, where it was a ClassCastException.
     */
    @Test
    void aKeyYamlReadsAsABooleanIsNamed() throws Exception {
        Path f = tmp.resolve("boolean-key.yaml");
        Files.writeString(f, "http:\n  off: 10\n");
        Vertx vertx = Vertx.vertx();
        try {
            ExecutionException e = assertThrows(ExecutionException.class, () -> ConfigLoader.load(vertx, f, Map.of())
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS));
            assertEquals(f + ": http.false: unknown key (known here: allowedHosts, allowedOrigins, host, idleTimeoutMs, "
                    + "maxBridgeSessions, maxBridgeSessionsPerAddress, maxConnections, port, requestHeadTimeoutMs, "
                    + "sendBufferBytes, token)",
                    e.getCause().getMessage());
        } finally {
            vertx.close();
        }
        java.util.Map<Object, Object> http = new java.util.HashMap<>();
        http.put(Boolean.FALSE, 10);
        java.util.Map<String, Object> raw = new java.util.HashMap<>();
        raw.put("http", http);
        ConfigException e = assertThrows(ConfigException.class, () -> ArgusConfig.read(f, new JsonObject(raw), Map.of()));
        assertEquals("http.false: a key YAML reads as boolean false (on, off, yes, no, true, false and numbers unquoted "
                + "are not text): expected a word, quote it", e.getMessage());
        http.clear();
        http.put(null, 10);   // the fuzzer's second find: an empty key
        e = assertThrows(ConfigException.class, () -> ArgusConfig.read(f, new JsonObject(raw), Map.of()));
        assertEquals("http.null: an empty key (or ~, YAML's null): expected a word", e.getMessage());
    }

    @Test
    void argusRunWithAnInvalidConfigExitsWithTheKeyAndReason() throws Exception {
        Path f = tmp.resolve("bad.yaml");
        Files.writeString(f, "http:\n  port: 99999\nmodels:\n  - id: m\n    cfg: " + TestMedia.cfg("yolov4-tiny.cfg") + "\n");
        PrintStream old = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true));
        int code;
        try {
            code = ArgusCli.run("run", "--config", f.toString());
        } finally {
            System.setErr(old);
        }
        assertEquals(2, code);
        String msg = err.toString();
        assertTrue(msg.contains("http.port") && msg.contains("expected an integer in 0..65535, found 99999"), msg);
    }

    @Test
    void anMqttSectionWithWhereToPublishButNotEnabledIsAStartUpWarningNamingTheSetting() throws Exception {
        ArgusConfig off = TestConfig.read(tmp, j -> j.put("mqtt", new JsonObject().put("host", "broker.lan").put("port", 1883)), Map.of());
        assertFalse(off.mqtt().enabled());
        assertEquals(List.of("mqtt.enabled: not set (default false), though mqtt.host and mqtt.port are set: the MQTT output is off,"
                + " no event is published (set mqtt.enabled: true to publish)"), off.warnings());
        ArgusConfig explicit = TestConfig.read(tmp, j -> j.put("mqtt", new JsonObject().put("enabled", false)),
                Map.of("ARGUS_MQTT_HOST", "broker.lan"));
        assertEquals(List.of("mqtt.enabled: false, though ARGUS_MQTT_HOST is set: the MQTT output is off, no event is published"
                + " (set mqtt.enabled: true to publish)"), explicit.warnings());
        assertEquals(List.of(), TestConfig.read(tmp, j -> j.put("mqtt", new JsonObject().put("enabled", true).put("host", "b")), Map.of()).warnings());
        assertEquals(List.of(), TestConfig.read(tmp, j -> { }, Map.of()).warnings(), "no section, nothing to warn of");
    }
}
