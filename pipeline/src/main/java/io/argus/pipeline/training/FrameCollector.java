package io.argus.pipeline.training;

import io.argus.detector.BgrImage;
import io.argus.detector.Detection;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which frames become training data. Per camera, candidates (already rate-limited by the {@link CollectorTap}) compete
 * for one place per {@code intervalMs}: a candidate whose thumbnail lies within {@code minSceneChange} of a frame
 * kept recently is the same scene again and is passed over (diversity); among the others the least confident wins
 * (the frames the model is least sure about teach it most). The winner is handed out with the first candidate after
 * the interval has passed. A forced candidate (someone asked for this camera's next frame) is kept as it is.
 *
 * <p>Used from one thread (the dataset verticle's I/O thread).
 */
final class FrameCollector {
    /** How many kept thumbnails per camera a candidate is compared with. */
    static final int MEMORY = 64;

    /** A frame offered for collection: a copy of its pixels and what the serving model found in it. */
    record Candidate(String camera, long frame, double pts, double captureTime, BgrImage image,
                     List<Detection> proposals, double confidence, String servedBy, boolean forced) {}

    private record Scored(Candidate candidate, Thumbnail thumbnail) {}

    private static final class CameraState {
        long lastKeptMs = Long.MIN_VALUE;
        Scored best;
        Thumbnail pendingThumbnail;
        final ArrayDeque<Thumbnail> recent = new ArrayDeque<>();
    }

    private final long intervalMs;
    private final double minSceneChange;
    private final Map<String, CameraState> cameras = new HashMap<>();

    FrameCollector(long intervalMs, double minSceneChange) {
        this.intervalMs = intervalMs;
        this.minSceneChange = minSceneChange;
    }

    /** The candidate to keep now (this one or an earlier better one), or null. Call {@link #kept} once stored. */
    Candidate consider(Candidate c, long nowMs) {
        CameraState s = cameras.computeIfAbsent(c.camera(), k -> new CameraState());
        Thumbnail t = Thumbnail.of(c.image());
        if (c.forced()) {
            s.pendingThumbnail = t;
            return c;
        }
        if (novelty(s, t) >= minSceneChange && (s.best == null || c.confidence() < s.best.candidate().confidence())) {
            s.best = new Scored(c, t);
        }
        if (s.best != null && (s.lastKeptMs == Long.MIN_VALUE || nowMs - s.lastKeptMs >= intervalMs)) {
            Scored out = s.best;
            s.best = null;
            s.lastKeptMs = nowMs;
            s.pendingThumbnail = out.thumbnail();
            return out.candidate();
        }
        return null;
    }

    /** Records that the candidate last handed out for {@code camera} was stored: later ones are compared with it. */
    void kept(String camera) {
        CameraState s = cameras.get(camera);
        if (s == null || s.pendingThumbnail == null) return;
        s.recent.addLast(s.pendingThumbnail);
        s.pendingThumbnail = null;
        while (s.recent.size() > MEMORY) s.recent.removeFirst();
    }

    /** Distance to the nearest recently kept frame of the camera (1 when there is none). */
    private static double novelty(CameraState s, Thumbnail t) {
        double min = 1;
        for (Thumbnail r : s.recent) min = Math.min(min, t.distance(r));
        return min;
    }

    void forget(String camera) { cameras.remove(camera); }
}
