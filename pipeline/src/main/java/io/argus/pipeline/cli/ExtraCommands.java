package io.argus.pipeline.cli;

import picocli.CommandLine;

/**
 * Commands that a jar on the class path adds to {@code argus}, found with {@link java.util.ServiceLoader}: the jar
 * names its implementation in {@code META-INF/services/io.argus.pipeline.cli.ExtraCommands}. The tools jar
 * (argus-tools: benchmarks, peers, evaluation) adds {@code bench} and its subcommands, {@code eval track},
 * {@code dataset tracking} and {@code dataset frames}, so that the product's jars hold none of them and still offer
 * them when the tools are there.
 */
public interface ExtraCommands {
    /** Adds the commands to {@code argus}, the root of the command tree: to it, or under one of its commands. */
    void addTo(CommandLine argus);
}
