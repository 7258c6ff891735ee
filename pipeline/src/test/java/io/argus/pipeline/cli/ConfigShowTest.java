package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.camera.CameraOverlay;
import io.argus.pipeline.cluster.ChangeMirror;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus config show} prints the effective configuration with each value's origin: the default, the config
 * file's line, an environment variable, the runtime overlay (a camera added and paused over REST, zones drawn there, a
 * file camera removed there); secrets redacted. Budget: 10 s.
 */
@Budget(seconds = 10)
class ConfigShowTest {
    @TempDir
    Path tmp;

    @Test
    void eachValueSaysWhereItCameFromAndNoSecretShows() throws Exception {
        Path cache = tmp.resolve("cache");
        Path file = tmp.resolve("argus.yaml");
        Files.writeString(file, String.join("\n",
                "http:",
                "  port: 8089",
                "  token: the-token-of-the-file",
                "models:",
                "  - id: tiny",
                "    cfg: " + TestMedia.cfg("yolov4-tiny.cfg"),
                "    names: " + TestMedia.cocoNames(),
                "    width: 160",
                "    height: 160",
                "cameras:",
                "  - id: yard",
                "    url: rtsp://admin:hunter2@10.0.0.1/yard",
                "  - id: gate",
                "    url: rtsp://10.0.0.1/gate",
                "    zones: [{id: drive, polygon: [[0, 0], [50, 0], [50, 50]]}]",
                "mqtt:",
                "  host: broker.lan",
                "  username: argus",
                "  password: mqtt-secret",
                "cacheDir: " + cache,
                ""));
        // over REST: yard removed, porch added and paused, zones drawn on gate
        CameraOverlay overlay = new CameraOverlay();
        List<String> models = List.of("tiny");
        overlay.removed("yard", CameraConfig.fromJson(new io.vertx.core.json.JsonObject().put("id", "yard")
                .put("url", "rtsp://admin:hunter2@10.0.0.1/yard"), models, tmp));
        overlay.added(CameraConfig.fromJson(new io.vertx.core.json.JsonObject().put("id", "porch")
                .put("url", "rtsp://cam:porch-pw@10.0.0.2/porch"), models, tmp), null);
        overlay.paused("porch", true);
        overlay.write(CameraOverlay.file(cache));
        Files.createDirectories(cache.resolve("scenes"));
        Files.writeString(cache.resolve("scenes/gate.json"), "{\"zones\": [{\"id\": \"porch-steps\", \"polygon\": [[1, 1], [9, 1], [9, 9]]}], \"lines\": []}");

        String shown = ConfigCommand.show(file, Map.of("ARGUS_HTTP_HOST", "127.0.0.1"));
        assertTrue(shown.contains("\nhttp:\n  host: \"127.0.0.1\"   # environment ARGUS_HTTP_HOST\n  port: 8089   # " + file + ":2\n"
                + "  token: \"<redacted>\"   # " + file + ":3\n"), shown);
        assertTrue(shown.contains("\n    maxBatch: 4   # default\n"), shown);
        assertTrue(shown.contains("\ncameras:\n  - id: \"gate\"   # " + file + ":13\n    url: \"rtsp://10.0.0.1/gate\"   # " + file + ":14\n"), shown);
        assertTrue(shown.contains("    zones: [{\"id\":\"porch-steps\""), shown);
        assertTrue(shown.contains("   # runtime overlay " + cache.resolve("scenes/gate.json") + "\n"), shown);
        assertTrue(shown.contains("\n  - id: \"porch\"   # runtime overlay " + CameraOverlay.file(cache) + "\n"
                + "    url: \"rtsp://***@10.0.0.2/porch\"   # runtime overlay "), shown);
        assertTrue(shown.contains("\n    paused: true   # runtime overlay "), shown);
        assertTrue(shown.contains("  password: \"<redacted>\"   # " + file + ":19\n"), shown);
        assertTrue(shown.contains("# note: camera yard of the config file stays removed"), shown);
        assertTrue(shown.contains("# note: mqtt.enabled: not set (default false), though mqtt.host is set"), shown);
        for (String secret : List.of("hunter2", "porch-pw", "mqtt-secret", "the-token-of-the-file")) {
            assertFalse(shown.contains(secret), secret + " shown in:\n" + shown);
        }
        assertFalse(shown.contains("id: \"yard\""), "the removed camera is not in the effective list");

        DetectCommandTest.Result run = DetectCommandTest.argus("config", "show", "--config", file.toString());
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().startsWith("# effective configuration of " + file), run.out());
    }

    /**
     * A cluster node: run-time changes are the cluster's, not applied to the file's values; what this node's copy of
     * them says is listed camera by camera, names only (an added camera's address may carry credentials).
     */
    @Test
    void aClusterNodeListsItsCopyOfTheRunTimeChanges() throws Exception {
        Path cache = tmp.resolve("cache");
        Path file = tmp.resolve("argus.yaml");
        Files.writeString(file, String.join("\n",
                "models:",
                "  - id: tiny",
                "    cfg: " + TestMedia.cfg("yolov4-tiny.cfg"),
                "    names: " + TestMedia.cocoNames(),
                "cameras:",
                "  - id: yard",
                "    url: rtsp://admin:hunter2@10.0.0.1/yard",
                "cluster:",
                "  enabled: true",
                "  members: [\"10.0.0.5:5701\"]",
                "  secret: " + io.argus.pipeline.testing.TestCluster.SECRET,
                "cacheDir: " + cache,
                ""));
        Path copy = ChangeMirror.file(cache);
        assertTrue(ConfigCommand.show(file, Map.of()).contains("this node keeps no copy of such changes (" + copy + ")"));

        // as a node writes it: porch added and paused; yard removed, but the file's yard has changed since
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, new io.vertx.core.json.JsonObject().put("version", 1).put("cameras", new io.vertx.core.json.JsonObject()
                .put("porch", new io.vertx.core.json.JsonObject().put("seq", 6).putNull("config").put("removed", false).put("paused", true)
                        .put("camera", new io.vertx.core.json.JsonObject().put("id", "porch").put("url", "rtsp://cam:porch-pw@10.0.0.2/porch").put("model", "tiny")))
                .put("yard", new io.vertx.core.json.JsonObject().put("seq", 5).put("config", "0".repeat(64)).put("removed", true).put("paused", false)))
                .encode());
        String shown = ConfigCommand.show(file, Map.of());
        assertTrue(shown.contains("# note: cluster.enabled: the cameras changed at run time are the cluster's (GET /api/cameras), "
                + "not applied above; this node's copy of them (" + copy + ") says:\n"
                + "# note:   \"porch\": added, paused\n"
                + "# note:   \"yard\": removed (superseded: the config file changed this camera since, and wins)\n"), shown);
        assertTrue(shown.contains("  - id: \"yard\""), "the file's cameras are shown as the file has them: " + shown);
        for (String secret : List.of("hunter2", "porch-pw", io.argus.pipeline.testing.TestCluster.SECRET)) {
            assertFalse(shown.contains(secret), secret + " shown in:\n" + shown);
        }
    }
}
