package io.argus.detector.cuda;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the project's config/ directory from the working directory (module or repository root). */
final class TestFiles {
    private TestFiles() {}

    static Path config() {
        Path p = Path.of("").toAbsolutePath();
        for (int i = 0; i < 5 && p != null; i++, p = p.getParent()) {
            if (Files.isDirectory(p.resolve("config/models/cfg"))) return p.resolve("config");
        }
        throw new IllegalStateException("config/models/cfg not found above " + Path.of("").toAbsolutePath());
    }

    static Path cfg(String name) {
        return config().resolve("models/cfg/" + name + ".cfg");
    }

    static Path sample(String name) {
        return config().resolve("samples/" + name);
    }
}
