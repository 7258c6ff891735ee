package io.argus.pipeline.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The Debian packages of {@code config/system-packages.txt} (one per line, {@code #} comments): the system libraries
 * the bundled natives link. Checked with {@code dpkg-query} where there is one; elsewhere (another distribution) the
 * FFmpeg and font checks still say what is missing.
 */
final class SystemPackagesCheck implements Check {
    private final Path list; // null: Argus home unknown

    SystemPackagesCheck(Path list) {
        this.list = list;
    }

    @Override
    public String name() { return "System packages"; }

    @Override
    public List<Finding> run() throws IOException {
        if (list == null || !Files.isRegularFile(list)) {
            return List.of(Finding.info(name(), "no list to check (" + (list != null ? list + " is missing" : "Argus home unknown") + ")"));
        }
        List<String> wanted = parse(Files.readString(list));
        if (!Processes.onPath("dpkg-query")) {
            return List.of(Finding.info(name(), "not a Debian-based system (no dpkg-query): " + String.join(", ", wanted)
                    + " or their equivalents are needed"));
        }
        List<String> command = new ArrayList<>(List.of("dpkg-query", "-W", "-f=${Package} ${Status}\\n"));
        command.addAll(wanted);
        Processes.Output o = Processes.run(command, Duration.ofSeconds(10));
        if (o == null) return List.of(Finding.warn(name(), "dpkg-query did not answer", null));
        Set<String> installed = installed(o.stdout());
        List<String> missing = wanted.stream().filter(p -> !installed.contains(p)).toList();
        if (missing.isEmpty()) return List.of(Finding.ok(name(), "all " + wanted.size() + " of " + list.getFileName() + " installed"));
        return List.of(Finding.warn(name(), "missing: " + String.join(", ", missing) + " (of " + list.getFileName() + ")",
                "apt-get install --no-install-recommends " + String.join(" ", missing)));
    }

    /** The package names of the list: first word of each line, comments and blank lines skipped. */
    static List<String> parse(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
            l = l.strip();
            if (!l.isEmpty()) out.add(l.split("\\s+")[0]);
        }
        return out;
    }

    /** Packages dpkg-query reports as "install ok installed" (name possibly with an architecture, e.g. :amd64). */
    static Set<String> installed(String dpkgOutput) {
        Set<String> out = new HashSet<>();
        for (String line : dpkgOutput.split("\n")) {
            String[] parts = line.strip().split("\\s+", 2);
            if (parts.length == 2 && parts[1].equals("install ok installed")) {
                String name = parts[0];
                out.add(name.contains(":") ? name.substring(0, name.indexOf(':')) : name);
            }
        }
        return out;
    }
}
