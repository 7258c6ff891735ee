package io.argus.pipeline.cli;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;

/**
 * The command list of {@code argus --help}: every command with the first line of its description, nested ones too
 * ({@code bench pipeline}, {@code weights init}), so nothing is found only by reading the source. picocli's own list
 * shows one level; a command hidden from help stays hidden.
 */
final class CommandList implements CommandLine.IHelpSectionRenderer {

    /** A command as listed: its full name under {@code argus} and the one-line summary. */
    record Entry(String name, String summary) {}

    @Override
    public String render(Help help) {
        List<Entry> entries = entries(help.commandSpec().commandLine());
        if (entries.isEmpty()) return "";
        int nameWidth = entries.stream().mapToInt(e -> e.name().length()).max().orElse(0);
        int width = help.commandSpec().usageMessage().width();
        TextTable table = TextTable.forColumns(help.colorScheme(),
                new Column(nameWidth + 4, 2, Column.Overflow.SPAN),
                new Column(Math.max(20, width - nameWidth - 4), 0, Column.Overflow.WRAP));
        for (Entry e : entries) table.addRowValues(e.name(), e.summary());
        return table.toString();
    }

    /** The commands under {@code root}, depth first in registration order, without hidden ones. */
    static List<Entry> entries(CommandLine root) {
        List<Entry> out = new ArrayList<>();
        collect(root, "", out);
        return out;
    }

    private static void collect(CommandLine parent, String prefix, List<Entry> out) {
        Map<CommandLine, Boolean> seen = new IdentityHashMap<>(); // aliases map to the same CommandLine
        for (CommandLine sub : parent.getSubcommands().values()) {
            if (seen.put(sub, true) != null || sub.getCommandSpec().usageMessage().hidden()) continue;
            String name = prefix + sub.getCommandName();
            out.add(new Entry(name, summary(sub)));
            collect(sub, name + " ", out);
        }
    }

    /** The first line of a command's description: what it does, in one line. */
    static String summary(CommandLine command) {
        String[] d = command.getCommandSpec().usageMessage().description();
        return d.length > 0 ? d[0].strip() : "";
    }
}
