package io.argus.pipeline.doctor;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the checks in order and prints each finding as it comes: status, topic, what was found, and on an indented
 * line below what to do. Each check runs on a daemon thread of its own and is waited for at most its timeout; a
 * check that throws or hangs becomes one finding naming the check, never a stack trace.
 */
public final class Doctor {
    private static final int TOPIC_WIDTH = 16;

    private final PrintStream out;
    private final List<Finding> findings = new ArrayList<>();

    public Doctor(PrintStream out) {
        this.out = out;
    }

    /** Runs {@code checks} in order; returns every finding. */
    public List<Finding> run(List<Check> checks) {
        for (Check c : checks) {
            for (Finding f : runOne(c)) {
                findings.add(f);
                print(f);
            }
        }
        return List.copyOf(findings);
    }

    /** 1 when any finding is FAIL, else 0. */
    public int exitCode() {
        return findings.stream().anyMatch(f -> f.status() == Status.FAIL) ? 1 : 0;
    }

    public String summary() {
        long fail = count(Status.FAIL), warn = count(Status.WARN);
        if (fail == 0 && warn == 0) return "argus doctor: everything Argus needs is here";
        return "argus doctor: " + fail + " FAIL, " + warn + " WARN" + (fail > 0 ? " (Argus will not fully work until fixed)" : "");
    }

    private long count(Status s) {
        return findings.stream().filter(f -> f.status() == s).count();
    }

    static List<Finding> runOne(Check c) {
        FutureTask<List<Finding>> task = new FutureTask<>(c::run);
        Thread t = new Thread(task, "argus-doctor-" + c.name());
        t.setDaemon(true); // a hung native call must not keep the JVM alive
        t.start();
        try {
            List<Finding> found = task.get(c.timeout().toMillis(), TimeUnit.MILLISECONDS);
            return found.isEmpty() ? List.of(Finding.info(c.name(), "nothing to report")) : found;
        } catch (TimeoutException e) {
            t.interrupt();
            return List.of(Finding.warn(c.name(), "the check did not finish within " + c.timeout().toSeconds() + " s",
                    "run `argus doctor` again; if it hangs again, this part of the system hangs (ARGUS_DEBUG=1 shows more)"));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (System.getenv("ARGUS_DEBUG") != null) cause.printStackTrace();
            return List.of(Finding.fail(c.name(), "the check itself failed: " + describe(cause),
                    "please report this with the output of ARGUS_DEBUG=1 argus doctor"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(Finding.warn(c.name(), "interrupted", null));
        }
    }

    /** A throwable as one line: its message, or its class when it has none. */
    static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.strip().lines().findFirst().orElse(m);
    }

    private void print(Finding f) {
        String topic = f.topic().length() < TOPIC_WIDTH ? f.topic() + " ".repeat(TOPIC_WIDTH - f.topic().length()) : f.topic() + " ";
        out.printf("%-5s %s%s%n", f.status(), topic, f.found());
        if (f.fix() != null) out.printf("%-5s %s-> %s%n", "", " ".repeat(TOPIC_WIDTH), f.fix());
    }
}
