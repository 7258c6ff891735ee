package io.argus.pipeline.tracking;

import io.argus.detector.Box;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * An event of one tracked object, Frigate-like: one event per object, told again whenever something happens to it
 * (docs/tracking.md "Events").
 *
 * @param id           {@code <cameraId>-<trackId>-<start in whole ms>}: the same in every message about the object
 * @param start        capture time (ms) of the frame the object was first seen in
 * @param end          capture time of its end, null until kind is {@link Kind#END}
 * @param time         capture time of the frame this message is about
 * @param confidence   the best detection confidence of the object so far (its best snapshot is taken then)
 * @param box          the latest box, source pixels
 * @param zones        the zones the object is in now, in the camera's zone order
 * @param enteredZones every zone it has entered, in the order of first entry
 * @param changes      what happened in this frame, in order (possibly nothing for {@code new} and {@code end})
 */
public record ObjectEvent(Kind kind, String id, String cameraId, long trackId, int classId, String className,
                          double start, Double end, double time, float confidence, Box box, List<String> zones,
                          List<String> enteredZones, List<Change> changes) {

    public enum Kind {
        /** the object was seen for the first time */
        NEW,
        /** something in {@code changes} happened */
        UPDATE,
        /** the tracker lost the object for good; it left the zones it was in */
        END;

        public String jsonName() { return name().toLowerCase(java.util.Locale.ROOT); }
    }

    /** One thing that happened to the object. */
    public sealed interface Change {
        JsonObject toJson();
    }

    public record Entered(String zone) implements Change {
        public JsonObject toJson() { return new JsonObject().put("type", "entered").put("zone", zone); }
    }

    public record Left(String zone) implements Change {
        public JsonObject toJson() { return new JsonObject().put("type", "left").put("zone", zone); }
    }

    public record Crossed(String line, Line.Direction direction) implements Change {
        public JsonObject toJson() {
            return new JsonObject().put("type", "crossed").put("line", line).put("direction", direction.jsonName());
        }
    }

    /** The object has been in the zone for {@code seconds} (at least the zone's loiterSeconds); told once a stay. */
    public record Loitering(String zone, double seconds) implements Change {
        public JsonObject toJson() { return new JsonObject().put("type", "loitering").put("zone", zone).put("seconds", seconds); }
    }

    public ObjectEvent {
        zones = List.copyOf(zones);
        enteredZones = List.copyOf(enteredZones);
        changes = List.copyOf(changes);
    }

    /** The event id of an object: {@code door-17-1763884800123}. */
    public static String eventId(String cameraId, long trackId, double start) {
        return cameraId + "-" + trackId + "-" + (long) Math.floor(start);
    }

    /** The camera of an event id ({@link #eventId}: the camera id may hold '-', the two numbers after it do not). */
    public static String cameraOf(String eventId) {
        int last = eventId.lastIndexOf('-');
        int second = last > 0 ? eventId.lastIndexOf('-', last - 1) : -1;
        if (second <= 0) throw new IllegalArgumentException("not an event id: \"" + eventId + "\" (expected camera-track-start)");
        return eventId.substring(0, second);
    }

    /** Where the REST API serves the object's best snapshot. */
    public String snapshotPath() { return "/api/events/" + id + "/snapshot.jpg"; }

    /** The message of docs/tracking.md "Events" ({@code "type": "event"}). */
    public JsonObject toJson() {
        JsonArray change = new JsonArray();
        for (Change c : changes) change.add(c.toJson());
        // numbers rounded as in detection messages (DetectionJson, DetectionMessage)
        JsonObject j = new JsonObject().put("type", "event").put("kind", kind.jsonName()).put("id", id)
                .put("cameraId", cameraId).put("trackId", trackId).put("classId", classId).put("className", className)
                .put("start", round(start, 3));
        if (end == null) j.putNull("end");
        else j.put("end", round(end, 3));
        return j.put("time", round(time, 3)).put("confidence", round(confidence, 5))
                .put("box", new JsonObject().put("x", round(box.x(), 2)).put("y", round(box.y(), 2))
                        .put("w", round(box.w(), 2)).put("h", round(box.h(), 2)))
                .put("zones", new JsonArray(new ArrayList<>(zones))).put("enteredZones", new JsonArray(new ArrayList<>(enteredZones)))
                .put("change", change).put("snapshot", snapshotPath());
    }

    private static double round(double v, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }
}
