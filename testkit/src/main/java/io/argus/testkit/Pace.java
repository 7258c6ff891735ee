package io.argus.testkit;

import java.time.Duration;

/**
 * Time that is itself the thing a test exercises, never a wait for something to happen: a fake camera paced at its
 * frame rate, a fault that lasts N seconds, a stand-in that takes as long as the real work would, a lock held for a
 * measured time. Waiting for a condition is {@link Waits}; a fixed sleep standing in for one is a flaky test on a loaded
 * machine and a slow one on a quiet machine, so tests sleep only through here (NoFixedSleepsTest holds them to it), each
 * call saying what the time is.
 */
public final class Pace {
    private Pace() {}

    /** Holds the calling thread for {@code time}, which is {@code what} (e.g. "the camera unplugged"). */
    public static void hold(Duration time, String what) throws InterruptedException {
        if (time.isNegative() || time.isZero()) return;
        Thread.sleep(time);
    }

    /** {@link #hold(Duration, String)} in milliseconds. */
    public static void holdMillis(long millis, String what) throws InterruptedException {
        hold(Duration.ofMillis(millis), what);
    }

    /**
     * Holds until {@link System#nanoTime()} reaches {@code nanoTime}: the next step of a schedule (frame i at start + i x
     * interval), so that the pace does not drift with the time each step took. Returns at once when it is past.
     */
    public static void until(long nanoTime, String what) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) hold(Duration.ofNanos(left), what);
    }

    /**
     * As {@link #hold(Duration, String)} where an interruption cannot be thrown (a stand-in's method): the interrupt is
     * kept for the caller to see, and the hold ends.
     */
    public static void holdUninterruptibly(Duration time, String what) {
        try {
            hold(time, what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
