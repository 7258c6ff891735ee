package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change of zones that cannot be kept changes nothing. A full disk made {@code PUT .../zones} answer 500 while
 * {@code GET} showed the new zones (the cluster's map was updated before the file was written) and left an empty
 * {@code .tmp} behind. Here the write fails for real (a directory stands where the camera's file goes, so the rename
 * onto it fails, as root too): the answer is a 5xx saying the zones were not saved and why, GET still shows the old
 * zones, and no temporary file is left; once the way is clear a PUT works and keeps the zones that stayed.
 * Budget: 15 s.
 */
@Budget(seconds = 15)
class ZonesWriteFailureTest {
    static final String OLD = "[{\"id\": \"porch\", \"polygon\": [[100, 400], [600, 400], [600, 700]]}]";
    static final String NEW = "[{\"id\": \"drive\", \"polygon\": [[0, 0], [300, 0], [300, 300], [0, 300]]}]";

    @TempDir
    Path root;

    static List<String> ids(JsonArray rules) {
        return rules.stream().map(o -> ((JsonObject) o).getString("id")).toList();
    }

    @Test
    void aZonesWriteThatFailsLeavesTheOldZonesEverywhereAndNoTemporaryFile() throws Exception {
        Path cache = root.resolve("cache");
        JsonObject json = TestConfig.light().put("cacheDir", cache.toString());
        json.getJsonArray("cameras").add(TestConfig.camera("cam1", TestMedia.h264(320, 180, 10, 1).toString()));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            RunningApp.Response saved = app.call(HttpMethod.PUT, "/api/cameras/cam1/zones", OLD);
            assertEquals(200, saved.status(), saved.body());

            Path scenes = cache.resolve("scenes");
            Path file = scenes.resolve("cam1.json");
            Files.delete(file);
            Files.createDirectories(file);
            Files.writeString(file.resolve("in-the-way"), "a directory where the zones' file goes: no rename lands on it");

            RunningApp.Response failed = app.call(HttpMethod.PUT, "/api/cameras/cam1/zones", NEW);
            assertTrue(failed.status() == 500 || failed.status() == 507, failed.status() + " " + failed.body());
            assertEquals(List.of("porch"), ids(app.get("/api/cameras/cam1/zones").array()), "GET shows the zones kept before");
            try (Stream<Path> left = Files.list(scenes)) {
                assertEquals(List.of(file), left.toList(), "no temporary file left beside the camera's file");
            }
            String error = failed.json().getString("error");
            assertTrue(error.startsWith("zones of camera \"cam1\" not saved, the previous ones stay: cannot write "), error);
            // once the way is clear, a change of the lines is kept with the zones that stayed, not the refused ones
            Files.delete(file.resolve("in-the-way"));
            Files.delete(file);
            RunningApp.Response retried = app.call(HttpMethod.PUT, "/api/cameras/cam1/lines", "[]");
            assertEquals(200, retried.status(), retried.body());
            assertEquals(List.of("porch"), ids(new JsonObject(Files.readString(file)).getJsonArray("zones")));
            assertEquals(List.of("porch"), ids(app.get("/api/cameras/cam1/zones").array()));
        }
    }
}
