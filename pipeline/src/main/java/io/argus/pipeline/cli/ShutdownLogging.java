package io.argus.pipeline.cli;

import java.util.logging.LogManager;

/**
 * java.util.logging's own shutdown hook resets the log manager (closing every handler) while Argus's shutdown hook
 * still runs, so what a stopping node does last (releasing or handing over its cameras, leaving the cluster) was never
 * logged. This log manager ignores that reset while the JVM shuts down; {@code argus run}'s hook flushes the handlers
 * itself once it is done. It must be named on the command line ({@code -Djava.util.logging.manager=}, as bin/argus
 * and the cluster benchmark's nodes do): the JDK reads the property once, when logging starts, which can be before
 * {@code main}.
 */
public final class ShutdownLogging extends LogManager {
    @Override
    public void reset() {
        // the JDK's shutdown hook is a thread of class LogManager$Cleaner; every other reset (configuration) goes on
        if (!Thread.currentThread().getClass().getName().equals("java.util.logging.LogManager$Cleaner")) super.reset();
    }

    /** Flushes every handler of the root logger (the end of argus run's shutdown). */
    static void flush() {
        for (var h : java.util.logging.Logger.getLogger("").getHandlers()) h.flush();
    }
}
