package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A camera id is a name, never a path. Zones and lines were kept in {@code <cacheDir>/scenes/<id>.json} for any id, so
 * {@code PUT /api/cameras/%2Ftmp%2Fx%2Fsub%2Fy/lines} created {@code /tmp/x/sub/y.json} (and its directories) and
 * {@code ..%2Fpwned} wrote {@code <cacheDir>/pwned.json}. Now such ids answer 400 naming the camera id, what was
 * expected and what was found (quoted and cut, never a 10 KB echo), a camera Argus does not know answers 404, and
 * nothing is written anywhere: not under the cache directory, not beside it, not in /tmp. The files that are written,
 * for a real camera, are their owner's only. One app for the class. Budget: 15 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 15)
class CameraIdIsNotAPathTest {
    static final String LINES = "[{\"id\": \"gate\", \"from\": [50, 300], \"to\": [700, 300]}]";
    static final String ZONES = "[{\"id\": \"porch\", \"polygon\": [[100, 400], [600, 400], [600, 700]]}]";

    @TempDir
    static Path root;
    Path cache;
    /** Where {@code %2Ftmp%2F...} would write: a fresh name, so a leftover of another run cannot pass for one of this. */
    final Path outside = Path.of("/tmp", "argus-camera-id-" + UUID.randomUUID());
    RunningApp app;

    @BeforeAll
    void start() throws Exception {
        cache = root.resolve("cache");
        JsonObject json = TestConfig.light().put("cacheDir", cache.toString());
        json.getJsonArray("cameras").add(TestConfig.camera("cam1", TestMedia.h264(320, 180, 10, 1).toString()));
        app = new RunningApp(TestConfig.read(json));
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) app.close();
    }

    /** Every file and directory under the temporary root (the cache directory's parent), as relative paths. */
    Set<String> tree() throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            return new TreeSet<>(all.map(p -> root.relativize(p).toString()).toList());
        }
    }

    @Test
    void pathsAsCameraIdsAre400AndWriteNothing() throws Exception {
        Set<String> before = tree();
        String slashes = outside.toString().replace("/", "%2F") + "%2Fsub%2Fy";
        for (String id : List.of(slashes, "..%2Fpwned", "..%2F..%2Fpwned", "%2E%2E%2Fpwned", "a%00b", "..", "-rf", ".hidden")) {
            for (String kind : List.of("lines", "zones")) {
                RunningApp.Response r = app.call(HttpMethod.PUT, "/api/cameras/" + id + "/" + kind, kind.equals("lines") ? LINES : ZONES);
                assertTrue(r.status() == 400 || r.status() == 404, "PUT " + id + "/" + kind + ": " + r.status() + " " + r.body());
                if (r.status() == 400) {
                    String error = r.json().getString("error");
                    assertTrue(error.startsWith("camera id: expected a name of 1-64 letters"), error);
                    assertTrue(error.contains(", found \""), error);
                }
                assertEquals(r.status(), app.get("/api/cameras/" + id + "/" + kind).status(), "GET " + id + "/" + kind);
            }
        }
        RunningApp.Response slash = app.call(HttpMethod.PUT, "/api/cameras/" + slashes + "/lines", LINES);
        assertEquals(400, slash.status(), slash.body());
        assertEquals("camera id: expected a name of 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, found \""
                + outside + "/sub/y\"", slash.json().getString("error"));
        assertFalse(Files.exists(outside), outside + " was created");
        assertEquals(before, tree(), "nothing written under " + root);
        assertFalse(Files.exists(cache.resolve("pwned.json")));
    }

    @Test
    void zonesAndLinesOfAnUnknownCameraAre404AndWriteNothing() throws Exception {
        Set<String> before = tree();
        for (String kind : List.of("zones", "lines")) {
            RunningApp.Response put = app.call(HttpMethod.PUT, "/api/cameras/nosuch/" + kind, kind.equals("lines") ? LINES : ZONES);
            assertEquals(404, put.status(), put.body());
            assertTrue(put.json().getString("error").startsWith("no camera \"nosuch\""), put.body());
            RunningApp.Response get = app.get("/api/cameras/nosuch/" + kind);
            assertEquals(404, get.status(), get.body());
        }
        assertEquals(before, tree(), "nothing written under " + root);
        assertFalse(Files.exists(cache.resolve("scenes/nosuch.json")));
    }

    @Test
    void cameraIdsInBodiesAndOtherRoutesAreCheckedToo() throws Exception {
        Set<String> before = tree();
        String url = TestMedia.h264(320, 180, 10, 1).toString();
        RunningApp.Response add = app.call(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", "../x").put("url", url).encode());
        assertEquals(400, add.status(), add.body());
        assertTrue(add.json().getString("error").startsWith("id: expected a name of 1-64 letters"), add.body());
        RunningApp.Response huge = app.call(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", "y".repeat(10_000)).put("url", url).encode());
        assertEquals(400, huge.status());
        assertTrue(huge.body().length() < 400, "the error does not echo a 10 KB id: " + huge.body().length() + " characters");
        assertTrue(huge.body().contains("(10000 characters)"), huge.body());
        for (String path : List.of("/api/cameras/a%00b", "/api/cameras/a%00b/snapshot.jpg", "/api/cameras/%2Fetc%2Fpasswd/snapshots/1.jpg")) {
            RunningApp.Response r = app.get(path);
            assertEquals(400, r.status(), path + ": " + r.body());
        }
        assertEquals(400, app.call(HttpMethod.POST, "/api/cameras/..%2Fx/pause", null).status());
        assertEquals(400, app.call(HttpMethod.DELETE, "/api/cameras/..%2Fx", null).status());
        assertEquals(400, app.get("/api/events/..%2Fx").status());
        assertEquals(400, app.get("/api/events/..%2Fx-1-2/snapshot.jpg").status());
        assertEquals(before, tree(), "nothing written under " + root);
        assertEquals(200, app.get("/api/cameras/cam1").status(), "the real camera is still there");
    }

    @Test
    void aRealCamerasZonesAreKeptInAnOwnerOnlyFile() throws Exception {
        RunningApp.Response put = app.call(HttpMethod.PUT, "/api/cameras/cam1/zones", ZONES);
        assertEquals(200, put.status(), put.body());
        assertEquals("porch", new JsonArray(put.body()).getJsonObject(0).getString("id"));
        assertEquals("porch", app.get("/api/cameras/cam1/zones").array().getJsonObject(0).getString("id"));
        Path file = cache.resolve("scenes/cam1.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)), "the cache directory");
    }
}
