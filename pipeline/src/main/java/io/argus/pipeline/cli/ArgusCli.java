package io.argus.pipeline.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code argus} command line: one subcommand per job. {@code argus} alone, like {@code argus --help}, lists every
 * command ({@link CommandList}).
 */
@Command(name = "argus", mixinStandardHelpOptions = true, version = "argus 0.1.0",
        description = "Real-time video analytics: Darknet-compatible YOLO on the JVM.",
        subcommands = {DetectCommand.class, BenchCommand.class, WeightsCommand.class, RunCommand.class,
                TrainCommand.class, EvalCommand.class, DatasetCommand.class, DoctorCommand.class, TokenCommand.class,
                ClusterCommand.class, ExportCommand.class})
public final class ArgusCli implements Runnable {
    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** No command given: the help, on standard output (a first-time user typing {@code argus} wants the list). */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The whole command tree, with the command list that shows nested commands. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ArgusCli());
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, new CommandList());
        return cl;
    }

    /** Runs without exiting, for tests: returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        if (args.length >= 2 && args[0].equals("bench") && args[1].equals("pipeline")) {
            // `bench pipeline` uses none of bench's options; picocli would still demand bench's required --cfg.
            cl = new CommandLine(new BenchPipelineCommand()).setCommandName("bench pipeline");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        } else if (args.length >= 2 && args[0].equals("bench") && args[1].equals("train")) {
            cl = new CommandLine(new BenchTrainCommand()).setCommandName("bench train");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        } else if (args.length >= 2 && args[0].equals("bench") && args[1].equals("loader")) {
            cl = new CommandLine(new BenchLoaderCommand()).setCommandName("bench loader");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        } else if (args.length >= 2 && args[0].equals("bench") && args[1].equals("cluster")) {
            cl = new CommandLine(new BenchClusterCommand()).setCommandName("bench cluster");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        } else if (args.length >= 2 && args[0].equals("bench") && args[1].equals("cluster-soak")) {
            cl = new CommandLine(new BenchClusterSoakCommand()).setCommandName("bench cluster-soak");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        }
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            // Users get the message that names the problem; the stack trace only with ARGUS_DEBUG=1.
            String name = cmd.getCommandSpec().qualifiedName(); // "argus token show"; "bench pipeline" is its own root
            cmd.getErr().println((name.startsWith("argus") ? name : "argus " + name) + ": " + messageOf(ex));
            if (System.getenv("ARGUS_DEBUG") != null) ex.printStackTrace(cmd.getErr());
            return 2;
        });
        return cl.execute(args);
    }

    static String messageOf(Throwable ex) {
        String m = ex.getMessage();
        if (ex instanceof java.io.UncheckedIOException && ex.getCause() != null) m = ex.getCause().getMessage();
        return m != null ? m : ex.toString();
    }
}
