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

    /** A sample picture of config/samples by file name (e.g. "dog.jpg"). */
    public static Path sample(String name) {
        return root().resolve("config/samples").resolve(name);
    }

    /** Sample pictures of config/samples by file name, read. */
    public static List<io.argus.detector.BgrImage> samples(String... names) {
        return Stream.of(names).map(n -> io.argus.detector.BgrImage.read(sample(n))).toList();
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

    /**
     * Two sample images for an equivalence test of {@code name} (a cfg): consecutive ones from a start that depends on
     * the name, so the cfgs between them see all samples.
     */
    public static List<io.argus.detector.BgrImage> twoSamples(String name) {
        List<Path> all = sampleImages();
        int first = Math.floorMod(name.hashCode(), all.size());
        return List.of(io.argus.detector.BgrImage.read(all.get(first)),
                io.argus.detector.BgrImage.read(all.get((first + 1) % all.size())));
    }

    /** The seven official cfgs Argus supports. */
    public static final List<String> CFGS = List.of("yolov3-tiny", "yolov3", "yolov4-tiny", "yolov4-tiny-3l", "yolov4",
            "yolov4-csp", "yolov7-tiny");

    /** {@link #CFGS}, for {@code @MethodSource}. */
    public static List<String> cfgs() { return CFGS; }
}
