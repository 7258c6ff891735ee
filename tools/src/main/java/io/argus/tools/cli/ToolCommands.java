package io.argus.tools.cli;

import io.argus.pipeline.cli.ExtraCommands;
import picocli.CommandLine;

/**
 * The tools' commands in {@code argus} (registered in META-INF/services/io.argus.pipeline.cli.ExtraCommands):
 * {@code bench} with its subcommands, {@code eval track}, {@code dataset tracking} and {@code dataset frames}.
 */
public final class ToolCommands implements ExtraCommands {
    @Override
    public void addTo(CommandLine argus) {
        argus.addSubcommand(new BenchCommand());
        argus.getSubcommands().get("eval").addSubcommand(new EvalTrackCommand());
        CommandLine dataset = argus.getSubcommands().get("dataset");
        dataset.addSubcommand(new DatasetTrackingCommand());
        dataset.addSubcommand(new DatasetFramesCommand());
    }
}
