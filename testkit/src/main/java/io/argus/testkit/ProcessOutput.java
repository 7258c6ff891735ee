package io.argus.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reading what a child process writes, so that it never blocks on a full pipe: tests that start servers, writers and
 * Argus nodes as processes either keep their lines or drop them, on a daemon thread that ends when the process closes
 * its output (or dies).
 */
public final class ProcessOutput {
    private ProcessOutput() {}

    /** Appends every line of {@code p}'s output to {@code lines} (synchronized on it), on a thread named {@code name}. */
    public static Thread collect(Process p, List<String> lines, String name) {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        return start(name, () -> {
            for (String line; (line = r.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                }
            }
        });
    }

    /** Reads and drops the rest of {@code out} (a process's output the caller has read the start of). */
    public static Thread discard(BufferedReader out, String name) {
        return start(name, () -> {
            while (out.readLine() != null) { /* keep the pipe empty */ }
        });
    }

    private interface Reading {
        void run() throws IOException;
    }

    private static Thread start(String name, Reading reading) {
        Thread t = new Thread(() -> {
            try {
                reading.run();
            } catch (IOException e) {
                // the process is gone
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
