package io.argus.tracking;

import io.argus.detector.Box;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** What {@link SceneWatch} remembers of one tracked object: its event's fields and its state in each zone and line. */
final class WatchedObject {
    final long trackId;
    final double startMs;
    int classId;
    String className;
    float bestConfidence;
    Box box;
    /** The anchor in the last frame the object was seen in (source pixels); null when unknown. */
    Point lastAnchor;
    final Map<String, ZonePresence> presence = new HashMap<>();    // by zone id
    final Map<String, LinePassage> passages = new HashMap<>();     // by line id
    final Set<String> enteredZones = new LinkedHashSet<>();

    WatchedObject(long trackId, double startMs) {
        this.trackId = trackId;
        this.startMs = startMs;
    }

    /** The object as seen in this frame; the class follows the latest detection, the confidence keeps the best. */
    void see(Tracked seen) {
        classId = seen.classId();
        className = seen.className();
        box = seen.box();
        bestConfidence = Math.max(bestConfidence, seen.confidence());
    }

    ZonePresence presenceIn(String zoneId) { return presence.computeIfAbsent(zoneId, id -> new ZonePresence()); }

    LinePassage passageOver(String lineId) { return passages.computeIfAbsent(lineId, id -> new LinePassage()); }
}
