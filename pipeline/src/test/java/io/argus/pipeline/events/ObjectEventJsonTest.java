package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.Box;
import io.argus.testkit.Budget;
import io.argus.tracking.Line.Direction;
import io.argus.tracking.ObjectEvent;
import io.argus.tracking.ObjectEvent.Crossed;
import io.argus.tracking.ObjectEvent.Kind;
import io.argus.tracking.ObjectEvent.Left;
import io.argus.tracking.ObjectEvent.Loitering;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An object's event as it goes over the wire ({@code /ws}, MQTT, REST): the message of docs/tracking.md "Events", keys
 * in the documented order, numbers rounded as in detection messages. Budget: well under a second.
 */
@Budget(seconds = 5)
class ObjectEventJsonTest {
    @Test
    void anEndEventIsTheDocumentedMessage() {
        // the end event of tracking's SceneWatchTest.anObjectsEventsGoNewUpdateUpdateEnd
        ObjectEvent end = new ObjectEvent(Kind.END, "door-7-1763884800123", "door", 7, 0, "person", 1763884800123.4,
                1763884800523.4, 1763884800523.4, 0.9f, new Box(280, 450, 40, 100), List.of(), List.of("porch"),
                List.of(new Left("porch")));
        JsonObject expected = new JsonObject("""
                {"type": "event", "kind": "end", "id": "door-7-1763884800123", "cameraId": "door", "trackId": 7,
                 "classId": 0, "className": "person", "start": 1763884800123.4, "end": 1763884800523.4,
                 "time": 1763884800523.4, "confidence": 0.9, "box": {"x": 280.0, "y": 450.0, "w": 40.0, "h": 100.0},
                 "zones": [], "enteredZones": ["porch"], "change": [{"type": "left", "zone": "porch"}],
                 "snapshot": "/api/events/door-7-1763884800123/snapshot.jpg"}""");
        JsonObject actual = new JsonObject(ObjectEventJson.toJson(end).encode());   // as it goes over the wire
        assertEquals(new ArrayList<>(expected.fieldNames()), new ArrayList<>(actual.fieldNames()), "keys in the documented order");
        assertEquals(expected.encode(), actual.encode());
    }

    @Test
    void eachChangeNamesWhatHappened() {
        assertEquals("{\"type\":\"crossed\",\"line\":\"gate\",\"direction\":\"in\"}",
                ObjectEventJson.toJson(new Crossed("gate", Direction.IN)).encode());
        assertEquals("{\"type\":\"loitering\",\"zone\":\"porch\",\"seconds\":12.5}",
                ObjectEventJson.toJson(new Loitering("porch", 12.5)).encode());
        ObjectEvent update = new ObjectEvent(Kind.UPDATE, "door-7-1", "door", 7, 0, "person", 1.23456, null, 2.3456789,
                0.123456f, new Box(1.234f, 2.345f, 3.456f, 4.567f), List.of("porch"), List.of("porch"), List.of());
        JsonObject j = ObjectEventJson.toJson(update);
        assertEquals(1.235, j.getDouble("start"));
        assertEquals(null, j.getValue("end"));
        assertEquals(true, j.containsKey("end"), "end is there, null until the object ends");
        assertEquals(0.12346, j.getDouble("confidence"));
        assertEquals("{\"x\":1.23,\"y\":2.35,\"w\":3.46,\"h\":4.57}", j.getJsonObject("box").encode());
    }
}
