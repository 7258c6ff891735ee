package io.argus.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The waits: a condition is polled until it holds or the deadline, whose failure names what was awaited (and the last
 * state, when the caller keeps it); a check that throws counts as not yet; {@code until} says whether it held;
 * {@code holdsFor} fails as soon as a negative stops holding; {@code Pace.until} keeps a schedule. Budget: 5 s (each
 * case waits at most a few hundred milliseconds).
 */
@Budget(seconds = 5)
class WaitsTest {
    @Test
    void aConditionThatComesIsWaitedForAndOneThatThrowsMeanwhileCountsAsNotYet() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        Waits.waitFor(() -> {
            if (polls.incrementAndGet() < 3) throw new IOException("not up yet");
            return polls.get() >= 5;
        }, 2_000, 1, "the fifth poll");
        assertEquals(5, polls.get());
    }

    @Test
    void aDeadlineReachedNamesWhatWasAwaitedAndTheLastState() {
        int[] seen = {0};
        AssertionError e = assertThrows(AssertionError.class,
                () -> Waits.waitFor(() -> ++seen[0] < 0, 100, 10, () -> "a negative count; last " + seen[0]));
        assertTrue(e.getMessage().startsWith("timed out after 100 ms waiting for a negative count; last "), e.getMessage());
        assertTrue(seen[0] >= 2, "polled until the deadline: " + seen[0]);
        AssertionError thrown = assertThrows(AssertionError.class,
                () -> Waits.waitFor(() -> { throw new IOException("refused"); }, 50, "a server"));
        assertTrue(thrown.getMessage().contains("(last check threw java.io.IOException: refused)"), thrown.getMessage());
    }

    @Test
    void untilSaysWhetherItHeld() throws Exception {
        long t0 = System.nanoTime();
        assertFalse(Waits.until(() -> false, 100, 10));
        assertTrue((System.nanoTime() - t0) / 1e6 >= 100, "it polled until the deadline");
        AtomicInteger polls = new AtomicInteger();
        assertTrue(Waits.until(() -> polls.incrementAndGet() == 3, 2_000, 1));
    }

    @Test
    void holdsForFailsAsSoonAsTheNegativeBreaks() throws Exception {
        Waits.holdsFor(() -> true, 100, "nothing arrives");
        AtomicInteger polls = new AtomicInteger();
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class,
                () -> Waits.holdsFor(() -> polls.incrementAndGet() < 3, 10_000, "no message gets across"));
        assertTrue(e.getMessage().matches("stopped holding after \\d+ of 10000 ms: no message gets across"), e.getMessage());
        assertTrue((System.nanoTime() - t0) / 1e9 < 5, "failed at once, not at the end of the 10 s");
    }

    @Test
    void paceKeepsAScheduleAndTakesNoTimeWhenPastIt() throws Exception {
        long start = System.nanoTime();
        for (int i = 1; i <= 3; i++) Pace.until(start + i * 20_000_000L, "frame " + i + " at 50 fps");
        assertTrue(System.nanoTime() - start >= 60_000_000L, "three frame intervals passed");
        long t0 = System.nanoTime();
        Pace.until(t0 - 1_000_000_000L, "a step already past");
        Pace.hold(Duration.ofMillis(-5), "no time");
        assertTrue(System.nanoTime() - t0 < 50_000_000L, "no hold for a time already past");
    }
}
