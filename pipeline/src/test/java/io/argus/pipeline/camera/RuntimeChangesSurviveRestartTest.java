package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user changes over REST (or the dashboard) lasts: two cameras added, zones and lines drawn, one camera paused,
 * one added and one of the config file deleted; after a restart on the same config and cache directory the cameras,
 * their pauses, zones and lines are exactly as they were, the config file's deleted camera stays deleted, and the
 * deleted cameras' zones are gone with them: re-added, a camera shows (and gets) its own zones, not its predecessor's.
 * The config file is never rewritten. Budget: 20 s (two starts of a small app: 10.5 s).
 */
@Budget(seconds = 20)
class RuntimeChangesSurviveRestartTest {
    static final String PORCH = "[{\"id\": \"porch\", \"polygon\": [[10, 10], [100, 10], [100, 100]], \"classes\": [\"person\"]}]";
    static final String GATE = "[{\"id\": \"gate\", \"from\": [0, 50], \"to\": [160, 50]}]";
    static final String DRIVE = "[{\"id\": \"drive\", \"polygon\": [[0, 0], [50, 0], [50, 50]]}]";

    @TempDir
    Path root;

    /** Every camera with what a user changed of it: paused, zones, lines. */
    static Map<String, JsonObject> state(RunningApp app) throws Exception {
        Map<String, JsonObject> out = new TreeMap<>();
        for (Object o : app.get("/api/cameras").array()) {
            String id = ((JsonObject) o).getString("id");
            JsonObject c = app.camera(id);
            out.put(id, new JsonObject().put("paused", c.getBoolean("paused")).put("url", c.getString("url"))
                    .put("zones", app.get("/api/cameras/" + id + "/zones").array())
                    .put("lines", app.get("/api/cameras/" + id + "/lines").array()));
        }
        return out;
    }

    static void ok(RunningApp.Response r, int status) {
        assertEquals(status, r.status(), r.body());
    }

    @Test
    void camerasZonesAndPausesSetOverRestAreExactlyRestoredAfterARestart() throws Exception {
        Path cache = root.resolve("cache");
        String video = TestMedia.h264(320, 180, 10, 1).toString();
        JsonObject json = TestConfig.light().put("cacheDir", cache.toString());
        json.getJsonArray("cameras").add(TestConfig.camera("yard", video));
        Path file = root.resolve("argus.yaml");
        Files.writeString(file, json.encodePrettily());   // JSON is YAML
        ArgusConfig config = ArgusConfig.read(file, json, Map.of());
        Map<String, JsonObject> before;
        try (RunningApp app = new RunningApp(config)) {
            ok(app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("porch", video).encode()), 201);
            ok(app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("shed", video).encode()), 201);
            ok(app.call(HttpMethod.PUT, "/api/cameras/porch/zones", PORCH), 200);
            ok(app.call(HttpMethod.PUT, "/api/cameras/porch/lines", GATE), 200);
            ok(app.call(HttpMethod.PUT, "/api/cameras/shed/zones", DRIVE), 200);
            ok(app.call(HttpMethod.POST, "/api/cameras/porch/pause", null), 200);
            ok(app.call(HttpMethod.DELETE, "/api/cameras/shed", null), 200);
            ok(app.call(HttpMethod.DELETE, "/api/cameras/yard", null), 200);
            assertFalse(Files.exists(cache.resolve("scenes/shed.json")), "a deleted camera's zones go with it");
            before = state(app);
        }
        assertEquals(List.of("porch"), new ArrayList<>(before.keySet()));
        assertTrue(before.get("porch").getBoolean("paused"));
        assertEquals(new JsonArray(PORCH).getJsonObject(0).getString("id"),
                before.get("porch").getJsonArray("zones").getJsonObject(0).getString("id"));

        try (RunningApp app = new RunningApp(config)) {
            assertEquals(before, state(app), "the state after the restart");
            // the deleted camera comes back with its own definition's zones, none of those drawn for the one before
            RunningApp.Response readded = app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("shed", video).encode());
            ok(readded, 201);
            assertEquals(new JsonArray(), readded.json().getJsonArray("zones"), readded.body());
            assertEquals(new JsonArray(), app.get("/api/cameras/shed/zones").array());
            // a camera added with zones answers with them: the ones that apply
            JsonObject withZones = TestConfig.camera("gate", video).put("zones", new JsonArray(DRIVE));
            RunningApp.Response added = app.call(HttpMethod.POST, "/api/cameras", withZones.encode());
            ok(added, 201);
            assertEquals("drive", added.json().getJsonArray("zones").getJsonObject(0).getString("id"));
            assertEquals("drive", app.camera("gate").getJsonArray("zones").getJsonObject(0).getString("id"));
        }
        assertEquals(json.encodePrettily(), Files.readString(file), "the config file is never rewritten");
        try (var beside = Files.list(root)) {
            assertEquals(List.of("argus.yaml", "cache"), beside.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing written beside it: the overlay is in the cache");
        }
        assertTrue(Files.isRegularFile(cache.resolve("state/cameras.json")));
    }
}
