package io.argus.testkit;

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
        AssertionError e = new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what
                + (last != null ? " (last check threw " + last + ")" : ""));
        if (last != null) e.initCause(last);
        throw e;
    }
}
