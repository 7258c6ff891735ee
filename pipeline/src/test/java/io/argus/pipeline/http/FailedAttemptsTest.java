package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lockouts after wrong tokens, per address and for all addresses together, on a clock the test moves. */
@Budget(seconds = 5)
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
    void aHundredFailuresFromAllAddressesLockEveryAddressForTheRestOfTheWindow() {
        FailedAttempts f = new FailedAttempts(now::get, 1_000);
        for (int i = 0; i < FailedAttempts.MAX_FAILURES_ALL; i++) {
            assertEquals(0, f.retryAfterSeconds("spray-" + i), "attempt " + (i + 1) + " is answered");
            f.failed("spray-" + i); // one each: no address reaches its own limit
            if (i % 10 == 9) advanceSeconds(1);
        }
        assertTrue(f.everyoneLockedOut());
        assertEquals(FailedAttempts.WINDOW_SECONDS - 10, f.retryAfterSeconds("10.9.9.9"),
                "an address that never failed waits for the window that began with the first failure of all");
        advanceSeconds(FailedAttempts.WINDOW_SECONDS - 10);
        assertEquals(0, f.retryAfterSeconds("10.9.9.9"), "a new window");
        assertFalse(f.everyoneLockedOut());
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
