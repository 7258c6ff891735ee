package io.argus.tracking;

import java.util.OptionalDouble;

/**
 * Whether one object is in one zone, with hysteresis in time: the object enters after {@code inertia} consecutive
 * frames seen inside, and leaves after {@code inertia} consecutive frames seen outside. Frames in which the object is
 * not seen at all (the tracker lost it for a while) neither add to nor break a run.
 *
 * <p>What "seen inside" means is the caller's ({@link SceneWatch}): it adds hysteresis in space as well.
 */
final class ZonePresence {
    enum Transition { NONE, ENTERED, LEFT }

    private boolean inside;
    private int run;                 // consecutive frames seen on the other side of what we believe
    private double runStartMs;
    private double stayStartMs;      // first frame of the run that made the object enter
    private boolean loiterTold;
    private String countedClass;     // the class the zone's count was raised for, lowered again when it leaves

    boolean inside() { return inside; }

    String countedClass() { return countedClass; }

    /** One frame in which the object was seen, inside the zone or not. */
    Transition observe(boolean seenInside, String className, int inertia, double timeMs) {
        if (seenInside == inside) {
            run = 0;
            return Transition.NONE;
        }
        if (run == 0) runStartMs = timeMs;
        if (++run < inertia) return Transition.NONE;
        run = 0;
        inside = seenInside;
        if (inside) {
            stayStartMs = runStartMs;
            loiterTold = false;
            countedClass = className;
            return Transition.ENTERED;
        }
        return Transition.LEFT;
    }

    /**
     * The seconds spent inside when the object has been in the zone for {@code loiterSeconds} (0: never) and this
     * stay's loitering has not been told yet; empty otherwise. The stay counts from its first frame seen inside, not
     * from the moment inertia let it in.
     */
    OptionalDouble loitering(double loiterSeconds, double timeMs) {
        if (!inside || loiterTold || loiterSeconds <= 0) return OptionalDouble.empty();
        double seconds = (timeMs - stayStartMs) / 1000;
        if (seconds < loiterSeconds) return OptionalDouble.empty();
        loiterTold = true;
        return OptionalDouble.of(Math.round(seconds * 1000) / 1000.0);
    }
}
