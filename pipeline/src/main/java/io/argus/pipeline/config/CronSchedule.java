package io.argus.pipeline.config;

import com.cronutils.descriptor.CronDescriptor;
import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Optional;

/**
 * When scheduled fine-tunes start: a cron expression (cron-utils), either Unix's five fields
 * ({@code minute hour day-of-month month day-of-week}, e.g. {@code "0 3 * * *"}: 03:00 every day) or six with seconds
 * first as Spring's ({@code "*&#47;30 * * * * *"}: every 30 s), in the machine's time zone.
 */
public final class CronSchedule {
    private final String expression;
    private final Cron cron;
    private final ExecutionTime times;

    private CronSchedule(String expression, Cron cron) {
        this.expression = expression;
        this.cron = cron;
        this.times = ExecutionTime.forCron(cron);
    }

    /** Parses; IllegalArgumentException says what is wrong with the expression. */
    public static CronSchedule parse(String expression) {
        String e = expression.strip();
        int fields = e.isEmpty() ? 0 : e.split("\\s+").length;
        CronType type = switch (fields) {
            case 5 -> CronType.UNIX;
            case 6 -> CronType.SPRING53;
            default -> throw new IllegalArgumentException("cron expression \"" + expression + "\": expected 5 fields "
                    + "(minute hour day month weekday) or 6 (second first), found " + fields);
        };
        try {
            Cron cron = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type)).parse(e).validate();
            return new CronSchedule(e, cron);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException("cron expression \"" + expression + "\": " + x.getMessage(), x);
        }
    }

    /** The first time strictly after {@code after}, if any. */
    public Optional<ZonedDateTime> next(ZonedDateTime after) {
        return times.nextExecution(after);
    }

    public String expression() { return expression; }

    /** In words, e.g. "every 30 seconds". */
    public String describe() {
        return CronDescriptor.instance(Locale.UK).describe(cron);
    }

    @Override
    public String toString() { return expression; }
}
