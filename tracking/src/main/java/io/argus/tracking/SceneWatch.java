package io.argus.tracking;

import io.argus.tracking.ObjectEvent.Change;
import io.argus.tracking.ObjectEvent.Crossed;
import io.argus.tracking.ObjectEvent.Entered;
import io.argus.tracking.ObjectEvent.Kind;
import io.argus.tracking.ObjectEvent.Left;
import io.argus.tracking.ObjectEvent.Loitering;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One camera's zones and lines applied to its tracked objects, frame by frame: presence in zones (with inertia),
 * loitering, line crossings, one {@link ObjectEvent} stream per object, and counts. Single-threaded: one instance per
 * camera, fed in capture order.
 *
 * <p>Presence has hysteresis in time and in space, so that an object standing on a zone's edge does not flap:
 * <ul>
 * <li>time: {@code inertia} consecutive frames seen inside before it enters, as many seen outside before it leaves;
 * <li>space: once inside, the anchor must be more than {@link #LEAVE_MARGIN} of the box's longer side outside the
 *     polygon to be seen outside. Detector boxes jitter from frame to frame, at random, and a random walk across an
 *     edge makes runs of any length sooner or later: inertia alone would let a parked car leave and re-enter every
 *     few seconds. And a box can change its width for a second, one side only (the demo model's box of an object
 *     standing on a zone's edge in the tracking video went from 76 to 98 px wide, its bottom centre 10 px outward):
 *     at 5% of the box the object left and entered again, at 15% it stays. The margin only delays leaving, by a few
 *     frames for an object walking away.
 * </ul>
 * A removed track leaves at once. An anchor exactly on the boundary is inside ({@link Zone}).
 */
public final class SceneWatch {
    /** How far outside a zone (a fraction of the box's longer side) an object inside must be seen to count as out. */
    public static final double LEAVE_MARGIN = 0.15;

    private final String cameraId;
    private SceneRules rules;
    private final Map<Long, WatchedObject> watched = new LinkedHashMap<>();
    private final SceneCounts counts = new SceneCounts();
    private List<Zone> zonesInPixels;     // rules.zones() for the frame size below
    private List<Line> linesInPixels;
    private int pixelsWidth = -1, pixelsHeight = -1;

    public SceneWatch(String cameraId, SceneRules rules) {
        this.cameraId = Objects.requireNonNull(cameraId, "cameraId");
        this.rules = Objects.requireNonNull(rules, "rules");
    }

    public String cameraId() { return cameraId; }

    public SceneRules rules() { return rules; }

    /** Objects seen and not yet removed. */
    public int watchedObjects() { return watched.size(); }

    /**
     * Replaces the rules from the next frame on. State is kept by id: a zone that keeps its id keeps who is inside
     * (a new shape applies through the usual inertia); a zone whose id is gone ends its presences quietly (no "left",
     * its counters go). A line that keeps its id and segment keeps everything; one moved keeps its counts but learns
     * the objects' sides afresh (a moved line is not crossed by standing still); one gone loses its counts. A new
     * anchor point makes every line learn the sides afresh.
     */
    public void setRules(SceneRules next) {
        Objects.requireNonNull(next, "rules");
        Set<String> zoneIds = new HashSet<>(), keptLines = new HashSet<>(), lineIds = new HashSet<>();
        for (Zone z : next.zones()) zoneIds.add(z.id());
        for (Line l : next.lines()) {
            lineIds.add(l.id());
            if (rules.line(l.id()).filter(l::sameSegment).isPresent()) keptLines.add(l.id());
        }
        boolean newAnchor = next.anchor() != rules.anchor();
        for (WatchedObject o : watched.values()) {
            o.presence.keySet().retainAll(zoneIds);
            o.passages.keySet().retainAll(newAnchor ? Set.of() : keptLines);
            if (newAnchor) o.lastAnchor = null;
        }
        for (Zone z : rules.zones()) if (!zoneIds.contains(z.id())) counts.forget(z.id());
        for (Line l : rules.lines()) if (!lineIds.contains(l.id())) counts.forget(l.id());
        rules = next;
        pixelsWidth = -1;
    }

    /**
     * One frame: the tracked objects in it (source pixels) at capture time {@code timeMs}, and the tracks the tracker
     * removed. Returns the events of this frame: a {@code new} for each object seen for the first time, an
     * {@code update} for each object something happened to (all of it in one message), an {@code end} for each
     * removed object, with a "left" for every zone it was in.
     */
    public List<ObjectEvent> update(double timeMs, int frameWidth, int frameHeight, List<Tracked> objects,
                                    List<Long> removedTrackIds) {
        if (frameWidth <= 0 || frameHeight <= 0) throw new IllegalArgumentException("frame size " + frameWidth + "x" + frameHeight);
        counts.startUpdate();
        resolvePixels(frameWidth, frameHeight);
        List<ObjectEvent> events = new ArrayList<>();
        for (Tracked seen : objects) {
            WatchedObject object = watched.get(seen.trackId());
            boolean first = object == null;
            if (first) {
                object = new WatchedObject(seen.trackId(), timeMs);
                watched.put(seen.trackId(), object);
            }
            object.see(seen);
            Point anchor = rules.anchor().of(seen.box());
            List<Change> changes = new ArrayList<>();
            watchZones(object, anchor, timeMs, changes);
            watchLines(object, anchor, changes);
            object.lastAnchor = anchor;
            if (first || !changes.isEmpty()) events.add(event(first ? Kind.NEW : Kind.UPDATE, object, timeMs, changes));
        }
        for (long id : removedTrackIds) {
            WatchedObject object = watched.remove(id);
            if (object != null) events.add(end(object, timeMs));
        }
        return events;
    }

    /** Ends every object (the camera stops): an {@code end} event each, as if the tracker had removed them all. */
    public List<ObjectEvent> endAll(double timeMs) {
        counts.startUpdate();
        List<ObjectEvent> events = new ArrayList<>();
        for (WatchedObject object : watched.values()) events.add(end(object, timeMs));
        watched.clear();
        return events;
    }

    private void watchZones(WatchedObject object, Point anchor, double timeMs, List<Change> changes) {
        double leaveMargin = LEAVE_MARGIN * Math.max(object.box.w(), object.box.h());
        for (int i = 0; i < zonesInPixels.size(); i++) {
            Zone zone = zonesInPixels.get(i);
            ZonePresence presence = object.presenceIn(zone.id());
            boolean seenInside = zone.accepts(object.className)
                    && (presence.inside() ? zone.distanceOutside(anchor) <= leaveMargin : zone.contains(anchor));
            switch (presence.observe(seenInside, object.className, zone.inertia(), timeMs)) {
                case ENTERED -> {
                    changes.add(new Entered(zone.id()));
                    object.enteredZones.add(zone.id());
                    counts.entered(zone.id(), presence.countedClass());
                }
                case LEFT -> {
                    changes.add(new Left(zone.id()));
                    counts.left(zone.id(), presence.countedClass());
                }
                case NONE -> { }
            }
            presence.loitering(zone.loiterSeconds(), timeMs).ifPresent(seconds -> changes.add(new Loitering(zone.id(), seconds)));
        }
    }

    private void watchLines(WatchedObject object, Point anchor, List<Change> changes) {
        for (Line line : linesInPixels) {
            Line.Direction crossed = object.passageOver(line.id()).step(line, object.lastAnchor, anchor);
            if (crossed != null && line.accepts(object.className)) {
                changes.add(new Crossed(line.id(), crossed));
                counts.crossed(line.id(), object.className, crossed);
            }
        }
    }

    private ObjectEvent end(WatchedObject object, double timeMs) {
        List<Change> changes = new ArrayList<>();
        for (Zone zone : rules.zones()) {
            ZonePresence presence = object.presence.get(zone.id());
            if (presence != null && presence.inside()) {
                changes.add(new Left(zone.id()));
                counts.left(zone.id(), presence.countedClass());
            }
        }
        object.presence.clear();
        return event(Kind.END, object, timeMs, changes);
    }

    private ObjectEvent event(Kind kind, WatchedObject object, double timeMs, List<Change> changes) {
        List<String> zonesNow = new ArrayList<>();
        for (Zone zone : rules.zones()) {
            ZonePresence presence = object.presence.get(zone.id());
            if (presence != null && presence.inside()) zonesNow.add(zone.id());
        }
        return new ObjectEvent(kind, ObjectEvent.eventId(cameraId, object.trackId, object.startMs), cameraId,
                object.trackId, object.classId, object.className, object.startMs, kind == Kind.END ? timeMs : null,
                timeMs, object.bestConfidence, object.box, zonesNow, List.copyOf(object.enteredZones), changes);
    }

    private void resolvePixels(int width, int height) {
        if (width == pixelsWidth && height == pixelsHeight) return;
        zonesInPixels = rules.zones().stream().map(z -> z.inPixels(width, height)).toList();
        linesInPixels = rules.lines().stream().map(l -> l.inPixels(width, height)).toList();
        pixelsWidth = width;
        pixelsHeight = height;
    }

    /** Every counter: objects inside each zone now and crossings of each line, per class. */
    public List<SceneCount> counts() { return counts.all(rules); }

    /** The counters whose value the last {@link #update} (or {@link #endAll}) changed: the ones to publish. */
    public List<SceneCount> changedCounts() { return counts.changed(rules); }

    /** Objects of this class inside the zone now. */
    public int inside(String zone, String className) {
        return Optional.ofNullable(counts.get(zone, className)).map(SceneCount::inside).orElse(0);
    }

    /** Crossings of the line by this class in this direction since the start. */
    public int crossings(String line, String className, Line.Direction direction) {
        return Optional.ofNullable(counts.get(line, className))
                .map(c -> direction == Line.Direction.IN ? c.in() : c.out()).orElse(0);
    }
}
