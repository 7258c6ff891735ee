package io.argus.pipeline.cli;

import io.argus.pipeline.base.StartupProgress;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * A start's progress as lines a person reads, on standard output:
 * <pre>
 * argus: loading model "default" (config/models/demo.cfg, backend auto)... cpu, 0.8 s
 * argus: generating the sample video (first start only, 40 scenes)... 6.1 s
 * argus: ready in 9.4 s (1 model, 1 camera)
 * </pre>
 * A step's line is printed, unfinished, when the step begins, so a slow step says what it is doing while it does it;
 * its time completes the line. When something else is printed meanwhile (another step, which happens when models load
 * in parallel, or a message on standard error, e.g. the CUDA fallback notice), the unfinished line is ended first and
 * the step's time comes later on a line of its own that repeats what it was.
 */
final class ConsoleProgress implements StartupProgress {
    private final PrintStream out;
    private Step openLine; // the step whose line waits for its time; guarded by this

    ConsoleProgress(PrintStream out) {
        this.out = out;
    }

    /**
     * Progress on standard output. Standard error is routed through a guard that ends an unfinished progress line
     * before anything else lands on it (log records, the backend's fallback notice).
     */
    static ConsoleProgress onStandardOutput() {
        ConsoleProgress p = new ConsoleProgress(System.out);
        System.setErr(new PrintStream(new LineGuard(System.err, p), true));
        return p;
    }

    @Override
    public Step step(String what) {
        ConsoleStep s = new ConsoleStep(what, System.nanoTime());
        synchronized (this) {
            endOpenLine();
            out.print("argus: " + what + "...");
            out.flush();
            openLine = s;
        }
        return s;
    }

    /**
     * Prints the final line of a start: the time since the JVM started (which includes loading the classes) and what
     * runs ({@code contents}, e.g. "1 model, 2 cameras"). The app's own "argus ready" log record goes to FINE when a
     * progress is shown, so a start says it once.
     */
    void ready(String contents) {
        long ms = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        synchronized (this) {
            endOpenLine();
            out.println("argus: ready in " + seconds(ms * 1_000_000) + " (" + contents + ")");
        }
    }

    /** Ends an unfinished step line, so the next output starts on a line of its own. */
    synchronized void endOpenLine() {
        if (openLine != null) {
            out.println();
            openLine = null;
        }
    }

    private synchronized void finish(ConsoleStep s, String outcome) {
        if (openLine == s) {
            out.println(" " + outcome);
            openLine = null;
        } else {
            endOpenLine();
            out.println("argus: " + s.what + "... " + outcome);
        }
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private final class ConsoleStep implements Step {
        private final String what;
        private final long started;

        ConsoleStep(String what, long started) {
            this.what = what;
            this.started = started;
        }

        @Override
        public void done(String result) {
            String took = seconds(System.nanoTime() - started);
            finish(this, result == null ? took : result + ", " + took);
        }

        @Override
        public void failed(Throwable error) {
            finish(this, "failed after " + seconds(System.nanoTime() - started));
        }
    }

    /** Standard error that first ends an unfinished progress line. */
    private static final class LineGuard extends FilterOutputStream {
        private final ConsoleProgress progress;

        LineGuard(OutputStream err, ConsoleProgress progress) {
            super(err);
            this.progress = progress;
        }

        @Override
        public void write(int b) throws IOException {
            progress.endOpenLine();
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            progress.endOpenLine();
            out.write(b, off, len);
        }
    }
}
