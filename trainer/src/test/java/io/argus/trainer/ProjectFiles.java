package io.argus.trainer;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files shipped in the project's config/, found from the test's working directory upwards. */
public final class ProjectFiles {
    private ProjectFiles() {}

    public static Path home() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("config/models"))) return p;
        }
        throw new IllegalStateException("no config/models above " + Path.of("").toAbsolutePath());
    }

    public static Path demoCfg() { return home().resolve("config/models/demo.cfg"); }

    public static Path demoNames() { return home().resolve("config/models/demo.names"); }

    public static Path demoWeights() { return home().resolve("config/models/demo.weights"); }
}
