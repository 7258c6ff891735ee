package io.argus.pipeline.inference;

import io.argus.detector.Detection;
import io.argus.tracking.ByteTracker;
import io.argus.tracking.TrackState;
import io.argus.tracking.TrackerSettings;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tracker per camera of one model (docs/tracking.md). Tracking runs on the inference thread, right after the
 * batch's detections and before their message is built, because every detection message carries its track: a camera's
 * frames reach the worker in order, one batch at a time, and 100 objects cost well under a millisecond, so a separate
 * verticle would only add a hop per frame. A camera that leaves this node is forgotten; its tracks start afresh
 * wherever it runs next.
 */
final class CameraTracks {
    /** What the tracker says about one frame: tracks aligned with the detections, and the tracks that ended. */
    record Tracked(List<TrackState> tracks, List<Long> ended) {}

    private final TrackerSettings settings;
    private final Map<String, ByteTracker> trackers = new ConcurrentHashMap<>();

    /** {@code settings}: null when tracking is off (messages then carry no tracks). */
    CameraTracks(TrackerSettings settings) { this.settings = settings; }

    /** On the inference thread: one frame of {@code camera} at capture time {@code timeMs}, of width x height px. */
    Tracked update(String camera, List<Detection> detections, double timeMs, int width, int height) {
        if (settings == null) return new Tracked(null, List.of());
        ByteTracker t = trackers.computeIfAbsent(camera, c -> new ByteTracker(settings));
        List<TrackState> tracks = t.update(detections, timeMs, width, height);
        return new Tracked(tracks, List.copyOf(t.removed()));
    }

    /** The camera left this node (any thread). */
    void forget(String camera) { trackers.remove(camera); }
}
