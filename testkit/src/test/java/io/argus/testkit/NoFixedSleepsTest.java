package io.argus.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No test of any module sleeps for a fixed time: a test waits for the condition it means ({@link Waits}), or, where the
 * time itself is the thing (a camera's frame rate, a fault's length, a sampling period), holds through {@link Pace},
 * saying what the time is. A fixed sleep is too short on a loaded machine (a flaky test) and too long on a quiet one.
 * Reads every module's {@code src/test/java}; the failure names each file and line. Budget: 5 s (one walk of the tests).
 */
@Budget(seconds = 5)
class NoFixedSleepsTest {
    /** {@code Thread.sleep} and {@code TimeUnit.X.sleep}, the two ways a test sleeps. */
    static final Pattern SLEEP = Pattern.compile("\\bThread\\s*\\.\\s*sleep\\s*\\(|\\b(NANOSECONDS|MICROSECONDS|MILLISECONDS"
            + "|SECONDS|MINUTES|HOURS)\\s*\\.\\s*sleep\\s*\\(");

    @Test
    void noTestSleepsForAFixedTime() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();   // the tests run in testkit/
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/test/java"))).toList()) {
                try (Stream<Path> files = Files.walk(module.resolve("src/test/java"))) {
                    files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                }
            }
        }
        assertTrue(sources.size() > 100, "the tests of every module were read: " + sources.size() + " files under " + root);
        List<String> found = new ArrayList<>();
        for (Path f : sources) {
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                if (SLEEP.matcher(lines.get(i)).find()) found.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
        }
        assertEquals(List.of(), found, "a fixed sleep in a test: wait for the condition it stands for (Waits.waitFor, "
                + "Waits.until, Waits.holdsFor), or where the time itself is the thing, Pace.hold saying what it is");
    }

    @Test
    void theRuleSeesBothWaysOfSleeping() {
        // (spelt in two parts, or the rule would find these lines themselves)
        assertTrue(SLEEP.matcher("        Thread" + ".sleep(250); // the port may still be held").find());
        assertTrue(SLEEP.matcher("if (wait > 0) TimeUnit.NANOSECONDS" + ".sleep(wait);").find());
        assertTrue(!SLEEP.matcher("Pace.holdMillis(250, \"a fault\");").find());
    }
}
