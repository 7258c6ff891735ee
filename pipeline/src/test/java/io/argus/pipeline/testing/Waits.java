package io.argus.pipeline.testing;

/** Polling for a condition in tests that watch separate processes (no event to wait on). */
public final class Waits {
    private Waits() {}

    /** A condition; it may throw while the thing watched is not up yet. */
    public interface Check { boolean ok() throws Exception; }

    /** Polls {@code c} every 50 ms until it holds, or fails naming {@code what} after {@code timeoutMs}. */
    public static void waitFor(Check c, long timeoutMs, String what) throws Exception {
        long end = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() < end) {
            if (c.ok()) return;
            Thread.sleep(50);
        }
        throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
    }
}
