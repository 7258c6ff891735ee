package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.CronSchedule;
import io.argus.testkit.Budget;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** Cron expressions of the training schedule: Unix's five fields, six with seconds, and errors that say why. */
@Budget(seconds = 5)
class CronScheduleTest {
    static final ZonedDateTime NOON = ZonedDateTime.of(2026, 11, 23, 12, 0, 7, 0, ZoneId.of("UTC"));

    @Test
    void fiveFieldsAreUnixCronToTheMinute() {
        CronSchedule s = CronSchedule.parse("30 3 * * *");
        assertEquals(ZonedDateTime.of(2026, 11, 24, 3, 30, 0, 0, ZoneId.of("UTC")), s.next(NOON).orElseThrow());
        assertEquals(ZonedDateTime.of(2026, 11, 23, 12, 15, 0, 0, ZoneId.of("UTC")),
                CronSchedule.parse("*/15 * * * *").next(NOON).orElseThrow());
    }

    @Test
    void sixFieldsStartWithSeconds() {
        CronSchedule s = CronSchedule.parse("*/2 * * * * *");
        assertEquals(NOON.withSecond(8), s.next(NOON).orElseThrow());
        assertEquals(NOON.withSecond(10), s.next(NOON.withSecond(8)).orElseThrow(), "strictly after");
        assertTrue(s.describe().contains("2"), s.describe());
        assertEquals("*/2 * * * * *", s.expression());
    }

    @Test
    void badExpressionsNameTheProblem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CronSchedule.parse("* * *"));
        assertEquals("cron expression \"* * *\": expected 5 fields (minute hour day month weekday) or 6 (second first), found 3",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CronSchedule.parse("61 * * * *"));
        assertTrue(e.getMessage().startsWith("cron expression \"61 * * * *\": "), e.getMessage());
    }
}
