package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code argus --help} lists every command, nested ones too, each with a one-line summary. The commands are read from
 * picocli's tree, so a new command without a description fails here.
 */
class ArgusCliHelpTest {
    @Test
    void helpListsEveryCommandWithItsOneLineSummary() {
        DetectCommandTest.Result r = DetectCommandTest.argus("--help");
        assertEquals(0, r.code(), r.err());
        List<CommandList.Entry> entries = CommandList.entries(ArgusCli.commandLine());
        assertTrue(entries.size() >= 10, entries.toString());
        List<String> lines = r.out().lines().toList();
        for (CommandList.Entry e : entries) {
            assertFalse(e.summary().isBlank(), "argus " + e.name() + " has no description");
            assertTrue(e.summary().length() <= 60, "argus " + e.name() + ": the first description line is one line "
                    + "(at most 60 characters), more goes on the next lines: " + e.summary());
            assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+" + java.util.regex.Pattern.quote(e.name()) + "\\s{2,}"
                    + java.util.regex.Pattern.quote(e.summary()))), "argus --help lacks " + e.name() + ":\n" + r.out());
        }
        for (String name : List.of("run", "doctor", "bench pipeline", "bench train", "bench loader", "detect")) {
            assertTrue(entries.stream().anyMatch(e -> e.name().equals(name)), name + " is not listed");
        }
    }

    @Test
    void argusAlonePrintsTheHelp() {
        DetectCommandTest.Result alone = DetectCommandTest.argus();
        DetectCommandTest.Result help = DetectCommandTest.argus("--help");
        assertEquals(0, alone.code(), alone.err());
        assertEquals(help.out(), alone.out());
        assertTrue(alone.err().isEmpty(), alone.err());
    }
}
