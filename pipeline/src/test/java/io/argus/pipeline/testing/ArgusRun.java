package io.argus.pipeline.testing;

import io.argus.pipeline.cli.ArgusCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the {@code argus} command line in process, as a user would type it, and keeps what it printed. */
public final class ArgusRun {
    private ArgusRun() {}

    /** The exit code and what went to standard output and standard error. */
    public record Result(int code, String out, String err) {}

    /** {@code argus ARGS...}; one at a time: standard output and error are the process's own. */
    public static synchronized Result argus(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = ArgusCli.run(args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
