package io.argus.pipeline.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which system libraries a set of natives lacks. JavaCPP extracts a preset's natives into one directory of its cache
 * and loads them by full path, so {@code ldd} run there reports the sibling libraries as "not found" too: it runs with
 * that directory on LD_LIBRARY_PATH, and what is still not found is missing from the system.
 */
final class MissingLibraries {
    private static final Pattern NOT_FOUND = Pattern.compile("^\\s*(\\S+)\\s+=>\\s+not found\\s*$", Pattern.MULTILINE);
    private static final Pattern CANNOT_OPEN = Pattern.compile("([\\w.+-]+\\.so(?:\\.[\\w.]+)?): cannot open shared object file");

    private MissingLibraries() {}

    /** The sonames {@code ldd} output reports as "not found", in order, without duplicates. */
    static List<String> parseLdd(String lddOutput) {
        List<String> out = new ArrayList<>();
        Matcher m = NOT_FOUND.matcher(lddOutput);
        while (m.find()) if (!out.contains(m.group(1))) out.add(m.group(1));
        return out;
    }

    /** The library a dynamic loader error says it could not open, e.g. {@code libpulse.so.0}; null if none. */
    static String fromLinkError(String message) {
        if (message == null) return null;
        Matcher m = CANNOT_OPEN.matcher(message);
        return m.find() ? m.group(1) : null;
    }

    /**
     * The missing system libraries of the natives in {@code dir} (and its subdirectories): soname to the first native
     * that needs it. Empty when ldd is not there.
     */
    static Map<String, String> of(Path dir) throws IOException {
        Map<String, String> missing = new LinkedHashMap<>();
        if (!Files.isDirectory(dir) || !Processes.onPath("ldd")) return missing;
        List<Path> natives;
        try (Stream<Path> files = Files.walk(dir, 8)) {
            natives = files.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().matches(".*\\.so(\\.[0-9.]+)?"))
                    .sorted().toList();
        }
        for (Path lib : natives) {
            String libraryPath = lib.getParent() + (System.getenv("LD_LIBRARY_PATH") != null ? ":" + System.getenv("LD_LIBRARY_PATH") : "");
            Processes.Output o = Processes.run(List.of("ldd", lib.toString()), Map.of("LD_LIBRARY_PATH", libraryPath),
                    Duration.ofSeconds(5));
            if (o == null) continue;
            for (String soname : parseLdd(o.stdout())) missing.putIfAbsent(soname, lib.getFileName().toString());
        }
        return missing;
    }
}
