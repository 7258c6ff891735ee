package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * REST and the WebSocket refuse what they cannot honour, naming the field and the valid values, instead of accepting
 * it and staying silent: a snapshot of a camera Argus does not know (404 "no camera", unlike a known camera without
 * that snapshot), zones and lines of an unknown camera (404, nothing written), a zone or line class the camera's model
 * lacks (400 listing the model's classes, bounded); on the WebSocket a filter naming a class no model has is refused
 * (an error, the subscription in force stays; 400 before the upgrade for the query string), one naming an unknown camera
 * is kept (the camera may be added later) with an error saying so. Budget: 20 s (one small app: 12.7 s).
 */
@Budget(seconds = 20)
class RefusesWhatItCannotHonourTest {
    static Path cache;
    static RunningApp app;

    @BeforeAll
    static void start() throws Exception {
        cache = Files.createTempDirectory("argus-refusals");
        JsonObject json = TestConfig.light().put("cacheDir", cache.toString());
        json.getJsonArray("cameras").add(TestConfig.camera("cam1", TestMedia.h264(320, 180, 10, 1).toString()));
        app = new RunningApp(TestConfig.read(json));
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) app.close();
    }

    @Test
    void aSnapshotOfAnUnknownCameraIsNoCameraNotNoSnapshotYet() throws Exception {
        RunningApp.Response unknown = app.get("/api/cameras/nosuch/snapshot.jpg");
        assertEquals(404, unknown.status());
        assertTrue(unknown.json().getString("error").startsWith("no camera \"nosuch\""), unknown.body());
        RunningApp.Response frame = app.get("/api/cameras/nosuch/snapshots/7.jpg");
        assertTrue(frame.json().getString("error").startsWith("no camera \"nosuch\""), frame.body());

        RunningApp.Response known = app.get("/api/cameras/cam1/snapshots/999999999.jpg");
        assertEquals(404, known.status());
        assertEquals("camera \"cam1\" has no snapshot of frame 999999999 (kept: the last few)", known.json().getString("error"));
    }

    @Test
    void zonesAndLinesOfAnUnknownCameraAre404AndWriteNothing() throws Exception {
        for (String part : new String[]{"zones", "lines"}) {
            RunningApp.Response r = app.call(HttpMethod.PUT, "/api/cameras/ghost/" + part, "[]");
            assertEquals(404, r.status(), r.body());
            assertTrue(r.json().getString("error").startsWith("no camera \"ghost\""), r.body());
        }
        assertFalse(Files.exists(cache.resolve("scenes/ghost.json")));
    }

    @Test
    void aClassTheCamerasModelLacksIs400ListingTheModelsClasses() throws Exception {
        String zones = "[{\"id\": \"porch\", \"polygon\": [[0, 0], [50, 0], [50, 50]], \"classes\": [\"person\", \"unicorn\"]}]";
        RunningApp.Response r = app.call(HttpMethod.PUT, "/api/cameras/cam1/zones", zones);
        assertEquals(400, r.status(), r.body());
        JsonObject error = r.json();
        assertEquals("zones[0].classes[1]", error.getString("field"));
        assertTrue(error.getString("error").startsWith("zones[0].classes[1]: model \"tiny\" of camera \"cam1\" has no class \"unicorn\""
                + " (zones[0].classes[1]: person, bicycle, car,"), error.getString("error"));
        assertTrue(error.getString("error").endsWith("... (80 in all))"), error.getString("error"));
        assertEquals(80, error.getInteger("validCount"));
        assertEquals(20, error.getJsonArray("valid").size(), "the list is bounded");
        assertEquals(new JsonArray(), app.get("/api/cameras/cam1/zones").array(), "nothing was kept");

        String lines = "[{\"id\": \"gate\", \"from\": [0, 50], \"to\": [160, 50], \"classes\": [\"Person\"]}]";
        RunningApp.Response l = app.call(HttpMethod.PUT, "/api/cameras/cam1/lines", lines);
        assertEquals(400, l.status(), l.body());
        assertEquals("lines[0].classes[0]", l.json().getString("field"));
        assertEquals(200, app.call(HttpMethod.PUT, "/api/cameras/cam1/lines", lines.replace("Person", "person")).status());
    }

    @Test
    void webSocketFiltersNamingAnUnknownCameraOrClassAreAnErrorOnTheSocket() throws Exception {
        try (WsClient ws = app.ws("/ws")) {
            ws.send(new JsonObject().put("type", "subscribe").put("cameras", new JsonArray().add("cam1").add("nosuch")));
            JsonObject e = ws.await(m -> "error".equals(m.getString("type")), Duration.ofSeconds(10), "an error");
            assertEquals("cameras", e.getString("field"));
            assertEquals("no camera \"nosuch\" now (cameras: cam1); subscribed anyway: its messages come once a camera of that id"
                    + " is added", e.getString("reason"));
            assertEquals(new JsonArray().add("cam1"), e.getJsonArray("valid"));
            ws.await(m -> "subscribed".equals(m.getString("type")), Duration.ofSeconds(10), "the subscription, kept for a camera added later");

            ws.send(new JsonObject().put("type", "subscribe").put("classes", new JsonArray().add("unicorn")));
            JsonObject c = ws.await(m -> "error".equals(m.getString("type")), Duration.ofSeconds(10), "an error");
            assertEquals("classes", c.getString("field"));
            assertTrue(c.getString("reason").startsWith("no model detects class \"unicorn\" (classes: person, bicycle,"), c.getString("reason"));

            ws.send(new JsonObject().put("type", "subscribe").put("cameras", new JsonArray().add("cam1")).put("classes", new JsonArray().add("person")));
            ws.await(m -> "subscribed".equals(m.getString("type")), Duration.ofSeconds(10), "the subscription of known names");
        }
        RunningApp.Response query = app.get("/ws?classes=unicorn");
        assertEquals(400, query.status(), query.body());
        assertEquals("classes", query.json().getString("field"));
        try (WsClient ws = app.ws("/ws?cameras=nosuch")) {
            JsonObject e = ws.await(m -> "error".equals(m.getString("type")), Duration.ofSeconds(10), "an error");
            assertEquals("cameras", e.getString("field"));
        }
    }
}
