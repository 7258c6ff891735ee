package io.argus.pipeline.events;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The messages of a scripted scene, in the shapes of docs/tracking.md: on camera "door" a person (track 17) appears,
 * enters zone "porch", crosses line "gate" inwards, leaves the porch and is gone; a car (track 18) crosses the gate
 * outwards. What the events verticle would send, in order.
 */
final class Scene {
    static final String CAMERA = "door";
    static final double START = 1763884800123.0;

    private Scene() {}

    static JsonObject event(String camera, long track, String className, String kind, double time, JsonArray change) {
        String id = camera + "-" + track + "-" + (long) START;
        return new JsonObject().put("type", "event").put("kind", kind).put("id", id).put("cameraId", camera)
                .put("trackId", track).put("classId", className.equals("person") ? 0 : 2).put("className", className)
                .put("start", START).put("end", kind.equals("end") ? time : null).put("time", time)
                .put("confidence", 0.91).put("box", new JsonObject().put("x", 1).put("y", 2).put("w", 3).put("h", 4))
                .put("zones", new JsonArray()).put("enteredZones", new JsonArray()).put("change", change)
                .put("snapshot", "/api/events/" + id + "/snapshot.jpg");
    }

    /** An event numbered {@code n}, for tests that count: its id is "door-n-...", kind "new". */
    static JsonObject numbered(int n) { return event(CAMERA, n, "person", "new", START + n, new JsonArray()); }

    static JsonObject zoneCount(String camera, String zone, String className, long count) {
        return new JsonObject().put("type", "count").put("cameraId", camera).put("zone", zone).put("className", className)
                .put("count", count);
    }

    static JsonObject lineCount(String camera, String line, String className, long in, long out) {
        return new JsonObject().put("type", "count").put("cameraId", camera).put("line", line).put("className", className)
                .put("in", in).put("out", out);
    }

    /** The scene's events and counts, in the order they happen; events and counts tell themselves apart by "type". */
    static List<JsonObject> script() {
        return List.of(
                event(CAMERA, 17, "person", "new", START, new JsonArray()),
                event(CAMERA, 17, "person", "update", START + 400,
                        new JsonArray().add(new JsonObject().put("type", "entered").put("zone", "porch"))),
                zoneCount(CAMERA, "porch", "person", 1),
                event(CAMERA, 17, "person", "update", START + 900,
                        new JsonArray().add(new JsonObject().put("type", "crossed").put("line", "gate").put("direction", "in"))),
                lineCount(CAMERA, "gate", "person", 1, 0),
                event(CAMERA, 18, "car", "new", START + 1000, new JsonArray()),
                event(CAMERA, 18, "car", "update", START + 1500,
                        new JsonArray().add(new JsonObject().put("type", "crossed").put("line", "gate").put("direction", "out"))),
                lineCount(CAMERA, "gate", "car", 0, 1),
                event(CAMERA, 17, "person", "update", START + 2000,
                        new JsonArray().add(new JsonObject().put("type", "left").put("zone", "porch"))),
                zoneCount(CAMERA, "porch", "person", 0),
                event(CAMERA, 17, "person", "end", START + 3000, new JsonArray()),
                event(CAMERA, 18, "car", "end", START + 3100, new JsonArray()));
    }
}
