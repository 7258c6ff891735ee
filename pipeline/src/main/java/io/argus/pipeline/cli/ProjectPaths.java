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

    /**
     * The config a command reads when not given {@code --config}: {@code $ARGUS_CONFIG}, else config/argus.yaml of the
     * Argus home (of the working directory when no home is found, so the error names a path).
     */
    public static Path config(Path explicit) {
        if (explicit != null) return explicit;
        String env = System.getenv("ARGUS_CONFIG");
        if (env != null) return Path.of(env);
        try {
            return home().resolve("config/argus.yaml");
        } catch (IllegalStateException e) {
            return Path.of("config/argus.yaml");
        }
    }

    public static Path sample(String name) {
        return home().resolve("config/samples").resolve(name);
    }
}
