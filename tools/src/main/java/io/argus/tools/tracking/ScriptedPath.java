package io.argus.tools.tracking;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a scripted object is, frame by frame: waypoints joined by straight moves at constant speed (a new leg may
 * have another speed, so the velocity changes), pauses where two waypoints share a place. Frames are counted from 0
 * here (the video's first frame); positions are in scene pixels.
 */
final class ScriptedPath {
    record Waypoint(double frame, double x, double y) {}

    private final List<Waypoint> points;

    private ScriptedPath(List<Waypoint> points) {
        this.points = List.copyOf(points);
    }

    static Builder startingAt(double frame, double x, double y) {
        return new Builder(new Waypoint(frame, x, y));
    }

    double firstFrame() { return points.getFirst().frame(); }

    double lastFrame() { return points.getLast().frame(); }

    List<Waypoint> waypoints() { return points; }

    /** The same path, started {@code frames} later. */
    ScriptedPath delayed(double frames) {
        return new ScriptedPath(points.stream().map(w -> new Waypoint(w.frame() + frames, w.x(), w.y())).toList());
    }

    /** The position {x, y} at {@code frame}, or null before the path starts or after it ends. */
    double[] at(double frame) {
        if (frame < firstFrame() || frame > lastFrame()) return null;
        for (int i = 1; i < points.size(); i++) {
            Waypoint a = points.get(i - 1), b = points.get(i);
            if (frame <= b.frame()) {
                double t = b.frame() == a.frame() ? 1 : (frame - a.frame()) / (b.frame() - a.frame());
                return new double[] {a.x() + t * (b.x() - a.x()), a.y() + t * (b.y() - a.y())};
            }
        }
        return new double[] {points.getLast().x(), points.getLast().y()};
    }

    static final class Builder {
        private final List<Waypoint> points = new ArrayList<>();

        private Builder(Waypoint start) {
            points.add(start);
        }

        /** A straight move to (x, y) at {@code speed} scene pixels per frame. */
        Builder moveTo(double x, double y, double speed) {
            if (!(speed > 0)) throw new IllegalArgumentException("speed must be positive, got " + speed);
            Waypoint last = points.getLast();
            double frames = Math.hypot(x - last.x(), y - last.y()) / speed;
            points.add(new Waypoint(last.frame() + frames, x, y));
            return this;
        }

        /** Staying where it is for {@code frames} frames. */
        Builder pause(double frames) {
            Waypoint last = points.getLast();
            points.add(new Waypoint(last.frame() + frames, last.x(), last.y()));
            return this;
        }

        /** Where the path is now (the last waypoint). */
        Waypoint last() { return points.getLast(); }

        ScriptedPath build() { return new ScriptedPath(points); }
    }
}
