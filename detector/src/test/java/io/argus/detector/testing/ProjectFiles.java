package io.argus.detector.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Locates the project's shipped data (config/) from a module's test working directory. */
public final class ProjectFiles {
    private ProjectFiles() {}

    public static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("config/models/cfg"))) return p;
        }
        throw new IllegalStateException("project root with config/models/cfg not found");
    }

    public static Path cfg(String name) {
        return root().resolve("config/models/cfg").resolve(name + ".cfg");
    }

    public static Path cocoNames() {
        return root().resolve("config/models/coco.names");
    }

    public static List<Path> sampleImages() {
        try (Stream<Path> s = Files.list(root().resolve("config/samples"))) {
            return s.filter(p -> p.toString().endsWith(".jpg")).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The seven official cfgs Argus supports. */
    public static final List<String> CFGS = List.of("yolov3-tiny", "yolov3", "yolov4-tiny", "yolov4-tiny-3l", "yolov4",
            "yolov4-csp", "yolov7-tiny");
}
