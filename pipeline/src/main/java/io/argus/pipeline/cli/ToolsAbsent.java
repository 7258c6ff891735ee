package io.argus.pipeline.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Stands in for a command of the tools jar (argus-tools) when that jar is not on the class path: listed in
 * {@code argus --help} as being there, and when run, whatever its arguments, it says where to get it instead of
 * picocli's "Unmatched argument".
 */
@Command
final class ToolsAbsent implements Callable<Integer> {
    /** The commands the tools jar adds ({@link ExtraCommands}), with the one-line summary of each stand-in. */
    private static final List<List<String>> TOOL_COMMANDS = List.of(
            List.of("bench", "Benchmarks and peers: in the Argus tools jar (absent)"),
            List.of("eval", "track", "Tracking metrics: in the Argus tools jar (absent)"),
            List.of("dataset", "tracking", "Synthetic tracking video: in the tools jar (absent)"),
            List.of("dataset", "frames", "Frames of a tracked video: in the tools jar (absent)"));

    static final String WHERE = "part of the Argus tools (benchmarks, peers, evaluation), which are not on the class "
            + "path. In a source checkout, bin/argus builds them (tools/) and adds them; with a release, put "
            + "argus-tools-<version>.jar, published beside the release tarball, into the release's lib/tools/.";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> arguments;

    /** Adds a stand-in for every tool command that no jar added to {@code argus}. */
    static void standIn(CommandLine argus) {
        for (List<String> command : TOOL_COMMANDS) {
            CommandLine parent = argus;
            for (String name : command.subList(0, command.size() - 2)) parent = parent.getSubcommands().get(name);
            String name = command.get(command.size() - 2);
            if (parent == null || parent.getSubcommands().containsKey(name)) continue;
            CommandLine standIn = new CommandLine(new ToolsAbsent());
            standIn.getCommandSpec().usageMessage().description(command.getLast());
            parent.addSubcommand(name, standIn);
        }
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + WHERE);
        return 2;
    }
}
