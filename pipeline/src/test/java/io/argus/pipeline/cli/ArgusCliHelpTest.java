package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code argus --help} lists every command, nested ones too, each with a one-line summary. The commands are read from
 * picocli's tree, so a new command without a description fails here. Budget: about a second.
 */
@Budget(seconds = 10)
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
        for (String name : List.of("run", "doctor", "detect", "train", "eval", "dataset synth", "bench")) {
            assertTrue(entries.stream().anyMatch(e -> e.name().equals(name)), name + " is not listed");
        }
    }

    /**
     * Without the tools jar (this module's tests never have it), its commands are listed as being elsewhere, and each,
     * whatever its arguments, says where to get them rather than "Unmatched argument"; the tools' own tests check the
     * real commands (tools/.../cli/ToolCommandsTest).
     */
    @Test
    void theToolsCommandsSayWhereTheToolsAre() {
        List<CommandList.Entry> entries = CommandList.entries(ArgusCli.commandLine());
        for (String name : List.of("bench", "eval track", "dataset tracking", "dataset frames")) {
            CommandList.Entry e = entries.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
            assertTrue(e.summary().endsWith("tools jar (absent)"), e.toString());
        }
        assertFalse(entries.stream().anyMatch(e -> e.name().startsWith("bench ")), entries.toString());
        for (String[] args : List.of(new String[] {"bench", "--backend", "cpu", "--cfg", "x.cfg"},
                new String[] {"bench", "pipeline", "--help"}, new String[] {"eval", "track", "--gt", "gt.txt"},
                new String[] {"dataset", "tracking", "--out", "d"}, new String[] {"dataset", "frames"})) {
            DetectCommandTest.Result r = DetectCommandTest.argus(args);
            assertEquals(2, r.code(), String.join(" ", args));
            String name = String.join(" ", List.of(args).subList(0, args[0].equals("bench") ? 1 : 2));
            assertTrue(r.err().startsWith("argus " + name + ": part of the Argus tools (benchmarks, peers, evaluation), "
                    + "which are not on the class path."), r.err());
            assertTrue(r.err().contains("argus-tools-<version>.jar"), r.err());
            assertTrue(r.out().isEmpty(), r.out());
        }
    }

    /** A description is a format string: a bare % made picocli warn three times above {@code dataset synth --help}. */
    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        for (CommandList.Entry e : CommandList.entries(ArgusCli.commandLine())) {
            if (e.summary().endsWith("tools jar (absent)")) continue;
            List<String> args = new java.util.ArrayList<>(List.of(e.name().split(" ")));
            args.add("--help");
            DetectCommandTest.Result r = DetectCommandTest.argus(args.toArray(String[]::new));
            assertEquals(0, r.code(), "argus " + e.name() + " --help: " + r.err());
            assertTrue(r.err().isEmpty(), "argus " + e.name() + " --help wrote to standard error:\n" + r.err());
            assertFalse(r.out().contains("[picocli"), r.out());
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
