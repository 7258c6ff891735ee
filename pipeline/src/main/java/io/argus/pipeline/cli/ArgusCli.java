package io.argus.pipeline.cli;

import java.util.Arrays;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code argus} command line: one subcommand per job. {@code argus} alone, like {@code argus --help}, lists every
 * command ({@link CommandList}). Jars on the class path add their own ({@link ExtraCommands}): the tools jar adds
 * {@code bench}, {@code eval track}, {@code dataset tracking} and {@code dataset frames}; without it those commands
 * say where to get it ({@link ToolsAbsent}).
 */
@Command(name = "argus", mixinStandardHelpOptions = true, version = "argus 0.1.0",
        description = "Real-time video analytics: Darknet-compatible YOLO on the JVM.",
        subcommands = {DetectCommand.class, WeightsCommand.class, RunCommand.class,
                TrainCommand.class, EvalCommand.class, DatasetCommand.class, DoctorCommand.class, TokenCommand.class,
                ClusterCommand.class, ExportCommand.class, ConfigCommand.class})
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
        for (ExtraCommands extra : ServiceLoader.load(ExtraCommands.class)) extra.addTo(cl);
        ToolsAbsent.standIn(cl);
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, new CommandList());
        return cl;
    }

    /** Runs without exiting, for tests: returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        CommandLine parent = args.length >= 2 ? cl.getSubcommands().get(args[0]) : null;
        CommandLine sub = parent != null ? parent.getSubcommands().get(args[1]) : null;
        if (sub != null && !parent.getCommandSpec().requiredArgs().isEmpty()) {
            // A subcommand of a command with required options runs as a root of its own: `bench pipeline` uses none of
            // bench's options, and picocli would still demand bench's required --cfg.
            cl = new CommandLine(sub.getCommand()).setCommandName(args[0] + " " + args[1]);
            args = Arrays.copyOfRange(args, 2, args.length);
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
        // an UncheckedIOException made of its cause alone says the cause's class first: its cause's message then
        if (ex instanceof java.io.UncheckedIOException && ex.getCause() != null
                && (m == null || m.equals(ex.getCause().toString()))) {
            m = ex.getCause().getMessage();
        }
        // a missing or unreadable file's exception says only its path: say what is wrong with it
        for (Throwable t : new Throwable[] {ex, ex.getCause()}) {
            if (t instanceof java.nio.file.FileSystemException f && f.getFile() != null && f.getReason() == null) {
                String what = t instanceof java.nio.file.NoSuchFileException ? "no such file"
                        : t instanceof java.nio.file.AccessDeniedException ? "permission denied" : "cannot read";
                if (m == null || m.equals(f.getFile())) return what + ": " + f.getFile();
                if (m.endsWith(": " + f.getFile())) return m.substring(0, m.length() - f.getFile().length()) + what;
            }
        }
        return m != null ? m : ex.toString();
    }
}
