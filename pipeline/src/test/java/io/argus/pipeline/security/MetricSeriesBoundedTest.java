package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code /metrics} stays about the size it was, whatever clients do: a series is made per camera and per event-bus
 * address a consumer listens on, and clients could make up addresses (SockJS registrations, which the bridge now takes
 * for the cameras it serves only) and add and remove cameras; the series of a removed camera and of an address nobody
 * listens on any more are removed. Likewise made-up HTTP methods do not become label values. (Before: 34 KB grew to
 * 651 KB.)
 *
 * <p>One light open app with a camera. Budget: 20 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 20)
class MetricSeriesBoundedTest {
    /** Allowed growth of /metrics over a test: new status codes and JVM series may come, per-client series may not. */
    static final double SLACK = 0.10;

    RunningApp app;

    @BeforeAll
    void start() throws Exception {
        JsonObject json = TestConfig.light();
        json.getJsonArray("cameras").add(TestConfig.camera("steady", TestMedia.shapes(10).toString()));
        app = new RunningApp(TestConfig.read(json));
        Waits.waitFor(() -> metrics().contains("argus_latency_seconds_count{camera=\"steady\""), 20_000,
                "the steady camera's latency series");
        // the kinds of request the tests make, once: their series (per method and status, a bounded few) come now
        assertEquals(201, app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera("warm-up", TestMedia.shapes(10).toString()).encode()).status());
        assertEquals(200, app.call(HttpMethod.DELETE, "/api/cameras/warm-up", null).status());
        app.send(HttpMethod.valueOf("WARMUP"), "/api/info", Map.of(), null);
        try (WsClient ws = app.ws("/ws"); WsClient bridge = WsClient.connect(app.client, app.port(), "/eventbus/websocket", null, 0)) {
            bridge.send(new JsonObject().put("type", "register").put("address", "argus.detections.steady"));
            bridge.await(m -> "rec".equals(m.getString("type")), Duration.ofSeconds(20), "the steady camera's detections");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) app.close();
    }

    String metrics() throws Exception { return app.get("/metrics").body(); }

    /** The series lines (not comments) of {@code text} that contain {@code part}. */
    static List<String> series(String text, String part) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) if (!line.startsWith("#") && line.contains(part)) out.add(line);
        return out;
    }

    void assertAboutTheSize(String before, String after, String what) {
        Set<String> added = new TreeSet<>(names(after));
        added.removeAll(names(before));
        System.out.println(what + ": /metrics " + before.length() + " bytes before, " + after.length() + " after; series"
                + " added: " + added.size() + " " + added.stream().limit(10).toList());
        assertTrue(after.length() <= before.length() * (1 + SLACK), what + ": /metrics grew from " + before.length()
                + " to " + after.length() + " bytes");
    }

    /** The series of a scrape, without their values. */
    static Set<String> names(String text) {
        Set<String> out = new TreeSet<>();
        for (String line : text.split("\n")) if (!line.startsWith("#") && line.contains(" ")) out.add(line.substring(0, line.lastIndexOf(' ')));
        return out;
    }

    @Test
    void registrationsToMadeUpAddressesLeaveNoSeries() throws Exception {
        String before = metrics();
        int[] refused = {0};
        try (WsClient bridge = WsClient.connect(app.client, app.port(), "/eventbus/websocket", null, 0)) {
            for (int i = 0; i < 100; i++) {
                for (String kind : new String[]{"detections", "snapshots", "training"}) {
                    bridge.send(new JsonObject().put("type", "register").put("address", "argus." + kind + ".madeup-" + i));
                }
            }
            // messages on a socket are handled in order: once the real camera's detections come, all were handled
            bridge.send(new JsonObject().put("type", "register").put("address", "argus.detections.steady"));
            bridge.await(m -> {
                if ("err".equals(m.getString("type"))) refused[0]++;
                return "rec".equals(m.getString("type"));
            }, Duration.ofSeconds(20), "the steady camera's detections");
            List<String> whileRegistered = series(metrics(), "madeup-");
            System.out.println("made-up registrations: " + refused[0] + " of 300 answered with an error; "
                    + whileRegistered.size() + " series name them while the socket is open");
            assertEquals(List.of(), whileRegistered.subList(0, Math.min(5, whileRegistered.size())),
                    "series of made-up addresses (first 5 shown)");
        }
        Waits.waitFor(() -> series(metrics(), "madeup-").isEmpty(), 5_000, "no series naming a made-up address");
        assertAboutTheSize(before, metrics(), "300 made-up registrations");
    }

    @Test
    void removedCamerasLeaveNoSeries() throws Exception {
        String before = metrics();
        List<String> ids = List.of("gone-1", "gone-2", "gone-3");
        for (String id : ids) {
            var added = app.call(HttpMethod.POST, "/api/cameras", TestConfig.camera(id, TestMedia.shapes(10).toString()).encode());
            assertEquals(201, added.status(), added.body());
        }
        try (WsClient ws = app.ws("/ws?includeEmpty=true&cameras=" + String.join(",", ids));
             WsClient bridge = WsClient.connect(app.client, app.port(), "/eventbus/websocket", null, 0)) {
            for (String id : ids) {
                bridge.send(new JsonObject().put("type", "register").put("address", "argus.detections." + id));
                ws.await(m -> id.equals(m.getString("cameraId")), Duration.ofSeconds(20), "detections of " + id);
            }
            bridge.await(m -> "rec".equals(m.getString("type")), Duration.ofSeconds(20), "bridged detections");
        }
        Waits.waitFor(() -> {
            String m = metrics();
            return ids.stream().allMatch(id -> m.contains("argus_latency_seconds_count{camera=\"" + id + "\""));
        }, 20_000, "latency series of the added cameras");
        System.out.println("series naming the added cameras: " + series(metrics(), "gone-").size());
        for (String id : ids) assertEquals(200, app.call(HttpMethod.DELETE, "/api/cameras/" + id, null).status());
        try {
            Waits.waitFor(() -> series(metrics(), "gone-").isEmpty(), 10_000, "no series naming a removed camera");
        } finally {
            List<String> left = series(metrics(), "gone-");
            System.out.println("series naming removed cameras 10 s after: " + left.size() + " "
                    + left.subList(0, Math.min(8, left.size())));
        }
        assertAboutTheSize(before, metrics(), "3 cameras added and removed");
    }

    @Test
    void madeUpHttpMethodsAreNoLabelValues() throws Exception {
        String before = metrics();
        for (int i = 0; i < 50; i++) app.send(HttpMethod.valueOf("MADEUP" + i), "/api/info", Map.of(), null);
        String after = metrics();
        List<String> named = series(after, "MADEUP");
        System.out.println("series naming a made-up method: " + named.size());
        assertEquals(List.of(), named.subList(0, Math.min(5, named.size())), "series of made-up methods (first 5 shown)");
        assertAboutTheSize(before, after, "50 made-up methods");
    }
}
