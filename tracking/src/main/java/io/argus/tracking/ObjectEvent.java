package io.argus.tracking;

import io.argus.detector.Box;
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
    public sealed interface Change {}

    public record Entered(String zone) implements Change {}

    public record Left(String zone) implements Change {}

    public record Crossed(String line, Line.Direction direction) implements Change {}

    /** The object has been in the zone for {@code seconds} (at least the zone's loiterSeconds); told once a stay. */
    public record Loitering(String zone, double seconds) implements Change {}

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
}
