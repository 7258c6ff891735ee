package io.argus.pipeline.events;

import io.argus.tracking.ObjectEvent;
import io.argus.tracking.ObjectEvent.Change;
import io.argus.tracking.ObjectEvent.Crossed;
import io.argus.tracking.ObjectEvent.Entered;
import io.argus.tracking.ObjectEvent.Left;
import io.argus.tracking.ObjectEvent.Loitering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;

/** An object's event as it goes out on {@code /ws}, MQTT and REST: the message of docs/tracking.md "Events". */
public final class ObjectEventJson {
    private ObjectEventJson() {}

    /** {@code {"type": "event", "kind", "id", "cameraId", ..., "change": [...], "snapshot"}}, keys in this order. */
    public static JsonObject toJson(ObjectEvent e) {
        JsonArray change = new JsonArray();
        for (Change c : e.changes()) change.add(toJson(c));
        // numbers rounded as in detection messages (DetectionJson, DetectionMessage)
        JsonObject j = new JsonObject().put("type", "event").put("kind", e.kind().jsonName()).put("id", e.id())
                .put("cameraId", e.cameraId()).put("trackId", e.trackId()).put("classId", e.classId())
                .put("className", e.className()).put("start", round(e.start(), 3));
        if (e.end() == null) j.putNull("end");
        else j.put("end", round(e.end(), 3));
        return j.put("time", round(e.time(), 3)).put("confidence", round(e.confidence(), 5))
                .put("box", new JsonObject().put("x", round(e.box().x(), 2)).put("y", round(e.box().y(), 2))
                        .put("w", round(e.box().w(), 2)).put("h", round(e.box().h(), 2)))
                .put("zones", new JsonArray(new ArrayList<>(e.zones())))
                .put("enteredZones", new JsonArray(new ArrayList<>(e.enteredZones())))
                .put("change", change).put("snapshot", e.snapshotPath());
    }

    /** One thing that happened: {@code {"type": "entered", "zone": "porch"}}, crossed (line, direction), ... */
    public static JsonObject toJson(Change change) {
        return switch (change) {
            case Entered c -> new JsonObject().put("type", "entered").put("zone", c.zone());
            case Left c -> new JsonObject().put("type", "left").put("zone", c.zone());
            case Crossed c -> new JsonObject().put("type", "crossed").put("line", c.line()).put("direction", c.direction().jsonName());
            case Loitering c -> new JsonObject().put("type", "loitering").put("zone", c.zone()).put("seconds", c.seconds());
        };
    }

    private static double round(double v, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }
}
