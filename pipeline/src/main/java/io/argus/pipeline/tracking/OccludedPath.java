package io.argus.pipeline.tracking;

import io.argus.detector.Box;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Where a track lost behind something goes: its last whole box, moved on at the speed it had while seen whole.
 *
 * <p>An object passing behind a post, or behind another object, is not lost at once: for a dozen frames the detector
 * still finds its visible part, a box that shrinks and stops at the occluder's edge. The Kalman filter follows that
 * box, so by the time the track is lost its velocity is near zero and its box is a sliver at the edge; predicted from
 * there, it never meets the object coming out on the other side (the tracking video's object 4 behind the post:
 * docs/tracking.md). The boxes seen before the shrinking say where the object really was and how fast it went; this
 * path extrapolates those instead, for a track whose last box had shrunk below {@link #SHRUNK} of its recent boxes'
 * median (the median, not the largest: one box the detector drew too large must not make every track look hidden).
 * A track lost while seen whole (a missed detection, an object leaving) keeps the filter's prediction.
 */
final class OccludedPath {
    /** Matched boxes remembered per track (one second at 30 frames/s). */
    static final int REMEMBERED = 30;
    /** A last box under this share of the recent boxes' median is a part of its object: it is being hidden. */
    static final double SHRUNK = 0.8;
    /**
     * Boxes of at least this share of the median show the whole object: they give the speed and the anchor. Higher
     * than SHRUNK, because a box half a step into the occluder has its centre behind by a few pixels already.
     */
    static final double WHOLE = 0.9;
    /** Whole sightings at least this many frames apart give a speed; fewer and the path is not trusted. */
    static final int MIN_SPAN = 3;

    /** A matched box and its frame. */
    record Sighting(int frame, Box box) {}

    private final int anchorFrame;
    private final Box anchor;
    private final double vx, vy;

    private OccludedPath(int anchorFrame, Box anchor, double vx, double vy) {
        this.anchorFrame = anchorFrame;
        this.anchor = anchor;
        this.vx = vx;
        this.vy = vy;
    }

    /**
     * The path of a track just lost, from its recent sightings (oldest first), or null when its last box had not
     * shrunk (it was not being hidden) or too few whole sightings span enough frames to give a speed.
     */
    static OccludedPath of(Deque<Sighting> recent) {
        if (recent.isEmpty()) return null;
        double[] areas = recent.stream().mapToDouble(s -> s.box().area()).sorted().toArray();
        double median = areas[areas.length / 2];
        if (recent.getLast().box().area() >= SHRUNK * median) return null;
        Sighting first = null, last = null;
        for (Sighting s : recent) {
            if (s.box().area() < WHOLE * median) continue;
            if (first == null) first = s;
            last = s;
        }
        if (last.frame() - first.frame() < MIN_SPAN) return null;
        double frames = last.frame() - first.frame();
        double vx = (centreX(last.box()) - centreX(first.box())) / frames;
        double vy = (centreY(last.box()) - centreY(first.box())) / frames;
        return new OccludedPath(last.frame(), last.box(), vx, vy);
    }

    /** Remembers a sighting, forgetting the oldest beyond {@link #REMEMBERED}. */
    static void remember(Deque<Sighting> recent, int frame, Box box) {
        if (recent.size() == REMEMBERED) recent.removeFirst();
        recent.addLast(new Sighting(frame, box));
    }

    static Deque<Sighting> memory() {
        return new ArrayDeque<>(REMEMBERED);
    }

    /** Where the whole object is at {@code frame}: the last whole box, moved on at its speed. */
    Box boxAt(int frame) {
        double dt = frame - anchorFrame;
        return new Box((float) (anchor.x() + vx * dt), (float) (anchor.y() + vy * dt), anchor.w(), anchor.h());
    }

    private static double centreX(Box b) { return b.x() + b.w() / 2.0; }

    private static double centreY(Box b) { return b.y() + b.h() / 2.0; }
}
