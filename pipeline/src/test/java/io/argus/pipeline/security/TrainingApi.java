package io.argus.pipeline.security;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * The app the training security tests share: the tiny model at 64x64 ({@link TestConfig#light()}) with online
 * training on (CPU, nothing collected unless asked for), and calls with their content type: JSON bodies as
 * {@code application/json}, weights as {@code application/octet-stream}. Weights that fit the model are made here.
 */
final class TrainingApi implements AutoCloseable {
    static final String MODEL = "tiny";

    final RunningApp app;
    final WebClient web;

    /** {@code edit}: changes to the config before start (cameras, {@code training.importDir}...). */
    TrainingApi(Path dataDir, java.util.function.Consumer<JsonObject> edit) throws Exception {
        JsonObject json = TestConfig.light();
        json.put("snapshots", new JsonObject().put("fps", 0)); // JPEG snapshots are not these tests' concern
        json.put("training", new JsonObject().put("enabled", true).put("model", MODEL).put("dataDir", dataDir.toString())
                .put("backend", "cpu").put("collect", new JsonObject().put("enabled", false)));
        edit.accept(json);
        app = new RunningApp(TestConfig.read(json));
        web = WebClient.create(app.client, io.argus.pipeline.testing.TestHttp.options("127.0.0.1", app.port()));
    }

    RunningApp.Response get(String path) throws Exception { return send(HttpMethod.GET, path, null, null); }

    RunningApp.Response json(HttpMethod method, String path, JsonObject body) throws Exception {
        return send(method, path, "application/json", Buffer.buffer(body.encode()));
    }

    RunningApp.Response weights(String path, byte[] body) throws Exception {
        return send(HttpMethod.POST, path, "application/octet-stream", Buffer.buffer(body));
    }

    RunningApp.Response send(HttpMethod method, String path, String contentType, Buffer body) throws Exception {
        var req = web.request(method, path).putHeader("Authorization", "Bearer " + app.token());
        if (contentType != null) req.putHeader("content-type", contentType);
        var f = body != null ? req.sendBuffer(body) : req.send();
        HttpResponse<Buffer> r = f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Buffer b = r.body() != null ? r.body() : Buffer.buffer();
        return new RunningApp.Response(r.statusCode(), b.toString(), r.getHeader("content-type"), b, r.headers());
    }

    /** The registry's answer to {@code GET /api/models/tiny/versions}. */
    JsonObject versions() throws Exception {
        RunningApp.Response r = get("/api/models/" + MODEL + "/versions");
        if (r.status() != 200) throw new AssertionError("versions: " + r.status() + " " + r.body());
        return r.json();
    }

    /** The network the app serves. */
    static NetworkSpec spec() {
        return NetworkSpec.load(TestMedia.cfg("yolov4-tiny.cfg"), 64, 64);
    }

    /** Weights of the served network, as a file's bytes (Darknet-initialised from {@code seed}). */
    static byte[] weights(long seed, Path scratch) throws Exception {
        Path f = scratch.resolve("w-" + seed + ".weights");
        WeightsFile.write(f, spec(), WeightsInit.darknet(spec(), seed));
        byte[] b = Files.readAllBytes(f);
        Files.delete(f);
        return b;
    }

    /** The version the registry gives these bytes. */
    static String version(byte[] bytes) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 12);
    }

    @Override
    public void close() throws Exception { app.close(); }
}
