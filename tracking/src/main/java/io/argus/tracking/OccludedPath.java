package io.argus.tracking;

import io.argus.detector.Box;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Where a track lost behind something goes: its last whole box, moved on at the speed it had while seen whole.
 *
 * <p>An object passing behind a post, or behind another object, is not lost at once: for a dozen frames the detector
 * still finds its visible part, a box that narrows (or shortens) and stops at the occluder's edge. The Kalman filter
 * follows that box, so by the time the track is lost its velocity is near zero and its box is a sliver at the edge;
 * predicted from there, it never meets the object coming out on the other side (the tracking video's object 4 behind
 * the post: docs/tracking.md). The boxes seen before the shrinking say where the object really was and how fast it
 * went; this path extrapolates those instead.
 *
 * <p>A track is taken as being hidden when it is lost
 * <ul>
 *   <li>with its last box narrower, or shorter, than {@link #SHRUNK} of its whole size. Each side is compared on its
 *       own: the demo model draws a half-hidden object's box narrower but taller (72x91 became 61x103 on seed 20261209),
 *       so the area hardly changed, and a rule on the area (the first version) missed it. The whole size is the upper
 *       quartile of the remembered boxes' sides: the object may have been going behind something for half of them, and
 *       the quartile is still not one box the detector drew too large;</li>
 *   <li>or right after a low-score match ({@code fading}): ByteTrack's reading of a low score is an object partly
 *       hidden, and the demo model sometimes keeps drawing the whole box at the occluder's edge, with a falling score,
 *       where the box stands still while the object goes on (seed 20261303).</li>
 * </ul>
 * A track lost while seen whole and confidently (a missed detection, an object leaving) keeps the filter's prediction.
 */
final class OccludedPath {
    /** Matched boxes remembered per track (one second at 30 frames/s). */
    static final int REMEMBERED = 30;
    /** A side under this share of the whole size's is a part of its object: it is being hidden. */
    static final double SHRUNK = 0.85;
    /**
     * Boxes with both sides at least this share of the whole size show the whole object: they give the speed and the
     * anchor. Higher than SHRUNK, because a box half a step into the occluder has its centre behind by a few pixels.
     */
    static final double WHOLE = 0.9;
    /** The quantile of the remembered sides taken as the whole object's (see the class comment). */
    static final double WHOLE_SIZE_QUANTILE = 0.75;
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
     * The path of a track just lost, from its recent sightings (oldest first), or null when it was not being hidden
     * (its last box whole, and not {@code fading}: last matched on a high score) or too few whole sightings span enough
     * frames to give a speed.
     */
    static OccludedPath of(Deque<Sighting> recent, boolean fading) {
        if (recent.isEmpty()) return null;
        double wholeW = wholeSide(recent, true), wholeH = wholeSide(recent, false);
        Box lastBox = recent.getLast().box();
        boolean shrunk = lastBox.w() < SHRUNK * wholeW || lastBox.h() < SHRUNK * wholeH;
        if (!shrunk && !fading) return null;
        Sighting first = null, last = null;
        for (Sighting s : recent) {
            if (s.box().w() < WHOLE * wholeW || s.box().h() < WHOLE * wholeH) continue;
            if (first == null) first = s;
            last = s;
        }
        if (last == null || last.frame() - first.frame() < MIN_SPAN) return null;
        double frames = last.frame() - first.frame();
        double vx = (centreX(last.box()) - centreX(first.box())) / frames;
        double vy = (centreY(last.box()) - centreY(first.box())) / frames;
        return new OccludedPath(last.frame(), last.box(), vx, vy);
    }

    /** The whole object's width (or height): the {@link #WHOLE_SIZE_QUANTILE} of the remembered boxes'. */
    private static double wholeSide(Deque<Sighting> recent, boolean width) {
        double[] sides = new double[recent.size()];
        int i = 0;
        for (Sighting s : recent) sides[i++] = width ? s.box().w() : s.box().h();
        Arrays.sort(sides);
        return sides[(int) Math.round(WHOLE_SIZE_QUANTILE * (sides.length - 1))];
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
