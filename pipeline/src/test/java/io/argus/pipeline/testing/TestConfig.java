package io.argus.pipeline.testing;

import io.argus.pipeline.config.ArgusConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Small, fast configurations for tests: yolov4-tiny at 160x160 with random weights (threshold just above the 0.25
 * where random weights put every confidence, so a few boxes per frame), loopback HTTP on a free port.
 */
public final class TestConfig {
    private TestConfig() {}

    public static JsonObject base() throws IOException {
        return new JsonObject()
                .put("http", new JsonObject().put("host", "127.0.0.1").put("port", 0))
                .put("models", new JsonArray().add(new JsonObject()
                        .put("id", "tiny").put("cfg", TestMedia.cfg("yolov4-tiny.cfg").toString())
                        .put("names", TestMedia.cocoNames().toString())
                        .put("width", 160).put("height", 160).put("seed", 1)
                        .put("threshold", 0.2512).put("maxDetections", 20)
                        .put("maxBatch", 4).put("maxWaitMs", 10).put("cpu", sharedTuning())))
                .put("cameras", new JsonArray())
                .put("camera", new JsonObject().put("connectTimeoutMs", 1500).put("stallTimeoutMs", 2500)
                        .put("reconnect", new JsonObject().put("initialMs", 200).put("maxMs", 1000)))
                .put("snapshots", new JsonObject().put("fps", 4).put("maxWidth", 320))
                .put("cacheDir", freshCache().toString());
    }

    /**
     * A cache directory of its own for each config: what one test changes at run time (cameras added over REST, zones,
     * the token) lasts across restarts (docs/pipeline.md "Runtime changes"), so a shared one would carry it into the
     * next test. A test that restarts an app on the same state reuses its config's {@code cacheDir}.
     */
    public static Path freshCache() throws IOException {
        Path caches = TestMedia.dir().resolve("caches");
        java.nio.file.Files.createDirectories(caches);
        return java.nio.file.Files.createTempDirectory(caches, "cache-");
    }

    /**
     * {@link #base()} with the model at 64x64: for tests of several node processes, which need messages per frame,
     * not detections. At 160x160 seven real-time cameras kept a 2-core CI machine at 100% and starved Hazelcast's
     * heartbeats for over 5 s: members were suspected, the cluster split, and failover waited for the merge.
     */
    public static JsonObject light() throws IOException {
        JsonObject j = base();
        j.getJsonArray("models").getJsonObject(0).put("width", 64).put("height", 64);
        return j;
    }

    /** The demo model (config/models/demo.*, trained on the synthetic shapes) instead of random yolov4-tiny weights. */
    public static JsonObject demo() throws IOException {
        JsonObject j = base();
        Path models = TestMedia.home().resolve("config/models");
        j.put("models", new JsonArray().add(new JsonObject()
                .put("id", "demo").put("cfg", models.resolve("demo.cfg").toString())
                .put("weights", models.resolve("demo.weights").toString())
                .put("names", models.resolve("demo.names").toString())
                .put("threshold", 0.25).put("maxBatch", 4).put("maxWaitMs", 10).put("cpu", sharedTuning())));
        return j;
    }

    /**
     * A model's {@code cpu:} with one tuning cache for every test (the tuner's choices depend on the CPU and the
     * layer, not on the test): under each test's fresh cacheDir every app start timed every convolution's candidates
     * again, about 6 s per start on a 2-core machine. Tests of where the cache goes remove it.
     */
    static JsonObject sharedTuning() throws IOException {
        return new JsonObject().put("tuningCache", TestMedia.dir().resolve("cpu-tuning").toString());
    }

    public static JsonObject camera(String id, String url) {
        return new JsonObject().put("id", id).put("url", url);
    }

    public static ArgusConfig read(JsonObject json) throws IOException {
        return ArgusConfig.read(TestMedia.dir().resolve("test.yaml"), json, Map.of());
    }

    /** {@link #base()} edited by {@code edit}, read as the file {@code dir}/x.yaml with environment {@code env}. */
    public static io.argus.pipeline.config.ArgusConfig read(java.nio.file.Path dir, java.util.function.Consumer<JsonObject> edit,
                                                           java.util.Map<String, String> env) throws Exception {
        JsonObject json = base();
        edit.accept(json);
        return io.argus.pipeline.config.ArgusConfig.read(dir.resolve("x.yaml"), json, env);
    }
}
