package io.argus.pipeline.events;

import io.argus.detector.Box;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The best snapshot of each event of one camera: the JPEG of the dashboard snapshot in which the event's object had
 * its highest confidence so far. At most {@code keep} events per camera keep one (the oldest event's goes first), so
 * memory stays bounded however long the camera runs. Pixels stay on the node that runs the camera; other nodes ask
 * for them over HTTP, one at a time, as for camera snapshots. Not thread-safe: the events verticle owns it.
 */
final class BestSnapshots {
    /**
     * A kept JPEG with the confidence that won it, the frame it shows, the frame's width (the JPEG may be smaller) and
     * the object's box in the frame's pixels.
     */
    record Best(float confidence, long frame, byte[] jpeg, int frameWidth, Box box) {}

    private final int keep;
    private final LinkedHashMap<String, Best> byEvent = new LinkedHashMap<>();

    BestSnapshots(int keep) { this.keep = keep; }

    /** True when {@code confidence} beats what the event has (or it has nothing yet): worth fetching the JPEG. */
    boolean wants(String eventId, float confidence) {
        if (keep == 0) return false;
        Best b = byEvent.get(eventId);
        return b == null || confidence > b.confidence();
    }

    /** Keeps {@code jpeg} for the event when it is still the best; returns whether it was kept. */
    boolean offer(String eventId, float confidence, long frame, byte[] jpeg, int frameWidth, Box box) {
        if (!wants(eventId, confidence)) return false;
        byEvent.put(eventId, new Best(confidence, frame, jpeg, frameWidth, box));
        while (byEvent.size() > keep) {
            Iterator<Map.Entry<String, Best>> oldest = byEvent.entrySet().iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }

    Best get(String eventId) { return byEvent.get(eventId); }

    int size() { return byEvent.size(); }
}
