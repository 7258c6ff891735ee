package io.argus.testkit;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The records java.util.logging's root logger receives while open, formatted as the console shows them (time, logger,
 * level, message): for tests of what a user reads (no secret logged, no warning they cannot act on). Close it to
 * detach; a test holds it for as long as it looks.
 */
public final class CapturedLogs implements AutoCloseable {
    private final Queue<String> records = new ConcurrentLinkedQueue<>();
    private final Handler handler = new Handler() {
        final SimpleFormatter format = new SimpleFormatter();

        @Override
        public void publish(LogRecord r) { records.add(format.format(r)); }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private CapturedLogs() {}

    /** Starts capturing. */
    public static CapturedLogs start() {
        CapturedLogs logs = new CapturedLogs();
        Logger.getLogger("").addHandler(logs.handler);
        return logs;
    }

    /** The records so far, each as formatted (ending with a line break). */
    public List<String> records() {
        return List.copyOf(records);
    }

    /** The records so far, one after the other. */
    public String text() {
        return String.join("", records);
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(handler);
    }
}
