package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-address lockout after wrong tokens, on a clock the test moves. */
class FailedAttemptsTest {
    final AtomicLong now = new AtomicLong(1_000_000_000L);

    void advanceSeconds(long s) { now.addAndGet(TimeUnit.SECONDS.toNanos(s)); }

    @Test
    void tenFailuresLockAnAddressForTheRestOfItsWindowOnly() {
        FailedAttempts f = new FailedAttempts(now::get, 100);
        for (int i = 0; i < FailedAttempts.MAX_FAILURES; i++) {
            assertEquals(0, f.retryAfterSeconds("10.0.0.1"), "attempt " + (i + 1) + " is answered");
            f.failed("10.0.0.1");
            advanceSeconds(1);
        }
        assertEquals(FailedAttempts.WINDOW_SECONDS - FailedAttempts.MAX_FAILURES, f.retryAfterSeconds("10.0.0.1"),
                "the 11th waits for the window that began with the first failure");
        assertEquals(0, f.retryAfterSeconds("10.0.0.2"), "a different address is unaffected");
        f.failed("10.0.0.2");
        assertEquals(0, f.retryAfterSeconds("10.0.0.2"));
        advanceSeconds(FailedAttempts.WINDOW_SECONDS - FailedAttempts.MAX_FAILURES - 1);
        assertEquals(1, f.retryAfterSeconds("10.0.0.1"));
        advanceSeconds(1);
        assertEquals(0, f.retryAfterSeconds("10.0.0.1"), "a new window");
    }

    @Test
    void memoryIsBoundedOldestAndExpiredGoFirst() {
        FailedAttempts f = new FailedAttempts(now::get, 3);
        for (int i = 0; i < FailedAttempts.MAX_FAILURES; i++) f.failed("a");
        f.failed("b");
        f.failed("c");
        f.failed("d"); // full: "a", the oldest, goes
        assertEquals(3, f.tracked());
        assertEquals(0, f.retryAfterSeconds("a"));
        advanceSeconds(FailedAttempts.WINDOW_SECONDS);
        f.failed("e"); // every window expired: all dropped
        assertEquals(1, f.tracked());
        for (int i = 0; i < 10_000; i++) f.failed("spray-" + i);
        assertTrue(f.tracked() <= 3, "bounded: " + f.tracked());
    }
}
