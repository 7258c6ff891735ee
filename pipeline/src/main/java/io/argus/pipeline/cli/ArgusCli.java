package io.argus.pipeline.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code argus} command line: one subcommand per job. */
@Command(name = "argus", mixinStandardHelpOptions = true, version = "argus 0.1.0",
        description = "Real-time video analytics: Darknet-compatible YOLO on the JVM.",
        subcommands = {DetectCommand.class, BenchCommand.class, WeightsCommand.class, RunCommand.class,
                TrainCommand.class, EvalCommand.class, DatasetCommand.class, TokenCommand.class})
public final class ArgusCli {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs without exiting, for tests: returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new ArgusCli());
        if (args.length >= 2 && args[0].equals("bench") && args[1].equals("pipeline")) {
            // `bench pipeline` uses none of bench's options; picocli would still demand bench's required --cfg.
            cl = new CommandLine(new BenchPipelineCommand()).setCommandName("bench pipeline");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        } else if (args.length >= 2 && args[0].equals("bench") && args[1].equals("train")) {
            cl = new CommandLine(new BenchTrainCommand()).setCommandName("bench train");
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        }
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            // Users get the message that names the problem; the stack trace only with ARGUS_DEBUG=1.
            cmd.getErr().println("argus " + cmd.getCommandName() + ": " + messageOf(ex));
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
