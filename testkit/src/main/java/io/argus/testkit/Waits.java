package io.argus.testkit;

import java.util.function.Supplier;

/**
 * Waiting in tests: for a condition, polled, with a deadline, never a fixed sleep. A fixed sleep is either too short on
 * a loaded machine (a flaky test) or too long on a quiet one (a slow suite); a deadline is only reached when something
 * is wrong.
 */
public final class Waits {
    private Waits() {}

    /** A condition; it may throw while the thing watched is not up yet (counted as not yet). */
    public interface Check { boolean ok() throws Exception; }

    /** Polls {@code c} every 50 ms until it holds, or fails naming {@code what} after {@code timeoutMs}. */
    public static void waitFor(Check c, long timeoutMs, String what) throws Exception {
        waitFor(c, timeoutMs, 50, what);
    }

    /** As above, polling every {@code pollMs}. */
    public static void waitFor(Check c, long timeoutMs, long pollMs, String what) throws Exception {
        waitFor(c, timeoutMs, pollMs, () -> what);
    }

    /**
     * As above, {@code what} made when it fails: the last state the check saw (kept by the caller) goes into the
     * message.
     */
    public static void waitFor(Check c, long timeoutMs, long pollMs, Supplier<String> what) throws Exception {
        long end = System.nanoTime() + timeoutMs * 1_000_000;
        Exception last = null;
        while (true) {
            try {
                if (c.ok()) return;
                last = null;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() >= end) break;
            Thread.sleep(pollMs);
        }
        AssertionError e = new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what.get()
                + (last != null ? " (last check threw " + last + ")" : ""));
        if (last != null) e.initCause(last);
        throw e;
    }

    /**
     * Polls {@code c} every {@code pollMs} until it holds or {@code timeoutMs} have passed, and says whether it held,
     * for a caller that judges the outcome itself: a test that times several things at once (each check records when
     * its part first held) and then asserts each with its own message. A check that throws counts as not yet.
     */
    public static boolean until(Check c, long timeoutMs, long pollMs) throws InterruptedException {
        long end = System.nanoTime() + timeoutMs * 1_000_000;
        while (true) {
            try {
                if (c.ok()) return true;
            } catch (Exception e) {
                // not yet
            }
            if (System.nanoTime() >= end) return false;
            Thread.sleep(pollMs);
        }
    }

    /**
     * That something does NOT happen can only be watched for a while: polls {@code c} every 50 ms for {@code ms} and
     * fails naming {@code what} the first time it does not hold (at once, not at the end). Use it only for a negative
     * (no message gets across, nothing more is written) after the positive case has been seen to happen quickly, and
     * take {@code ms} from how long the positive case took on a loaded machine; a check that throws fails at once.
     */
    public static void holdsFor(Check c, long ms, String what) throws Exception {
        long start = System.nanoTime(), end = start + ms * 1_000_000;
        while (true) {
            if (!c.ok()) {
                throw new AssertionError("stopped holding after " + (System.nanoTime() - start) / 1_000_000 + " of "
                        + ms + " ms: " + what);
            }
            long left = end - System.nanoTime();
            if (left <= 0) return;
            Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
        }
    }
}
