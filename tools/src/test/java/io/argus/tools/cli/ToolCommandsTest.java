package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * With the tools jar on the class path, {@code argus --help} lists its commands (found through
 * META-INF/services/io.argus.pipeline.cli.ExtraCommands) with their own one-line summaries, no stand-in among them,
 * and each answers its {@code --help}. Budget: 5 s (2.6 s measured).
 */
@Budget(seconds = 5)
class ToolCommandsTest {
    private static final List<String> TOOL_COMMANDS = List.of("bench", "bench pipeline", "bench train", "bench loader",
            "bench cluster", "bench cluster-soak", "eval track", "dataset tracking", "dataset frames");

    @Test
    void helpListsTheToolsCommands() {
        ArgusRun.Result r = ArgusRun.argus("--help");
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().contains("(absent)"), r.out());
        for (String name : TOOL_COMMANDS) {
            assertTrue(Pattern.compile("(?m)^\\s+" + Pattern.quote(name) + "\\s{2,}\\S").matcher(r.out()).find(),
                    "argus --help lacks " + name + ":\n" + r.out());
        }
        assertTrue(r.out().contains("Benchmark the detector (and a peer in the same run)."), r.out());
    }

    @Test
    void eachToolCommandAnswersItsHelp() {
        for (String name : TOOL_COMMANDS) {
            List<String> args = new java.util.ArrayList<>(List.of(name.split(" ")));
            args.add("--help");
            ArgusRun.Result r = ArgusRun.argus(args.toArray(String[]::new));
            assertEquals(0, r.code(), name + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: "), name + ": " + r.out());
            assertTrue(r.out().contains(name.substring(name.lastIndexOf(' ') + 1)), name + ": " + r.out());
        }
    }
}
