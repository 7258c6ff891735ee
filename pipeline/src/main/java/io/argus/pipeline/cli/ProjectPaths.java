package io.argus.pipeline.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the project's shipped data (config/) from the working directory or ARGUS_HOME. */
public final class ProjectPaths {
    private ProjectPaths() {}

    public static Path home() {
        String env = System.getenv("ARGUS_HOME");
        if (env != null) return Path.of(env);
        Path p = Path.of("").toAbsolutePath();
        for (Path q = p; q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("config/models"))) return q;
        }
        throw new IllegalStateException("cannot find the Argus home (a directory with config/models); set ARGUS_HOME");
    }

    public static Path sample(String name) {
        return home().resolve("config/samples").resolve(name);
    }
}
