package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ArgusConfig.Reconnect;
import io.argus.testkit.Budget;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Budget(seconds = 5)
class BackoffTest {
    @Test
    void growsExponentiallyUpToTheCapWithoutJitter() {
        Backoff b = new Backoff(new Reconnect(100, 1000, 2, 0), new Random(1));
        long[] expected = {100, 200, 400, 800, 1000, 1000};
        for (long e : expected) assertEquals(e, b.next());
        b.reset();
        assertEquals(100, b.next());
    }

    @Test
    void jitterSpreadsEachDelayWithinItsBand() {
        Backoff b = new Backoff(new Reconnect(1000, 1000, 2, 0.25), new Random(7));
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            long d = b.next();
            assertTrue(d >= 750 && d <= 1250, "delay " + d + " outside 1000 +- 25%");
            seen.add(d);
        }
        assertTrue(seen.size() > 50, "jitter should spread delays, saw " + seen.size() + " distinct values");
    }
}
