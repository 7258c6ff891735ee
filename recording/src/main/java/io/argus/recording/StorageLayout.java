package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * Where a camera's segments lie under one storage directory: {@code <root>/<camera>/<yyyy-MM-dd>/<start ms>.mp4},
 * the date in UTC. A camera id is a name, never a path (the pipeline checks it where it enters; it is checked again
 * here), and every file is resolved under the root and checked to stay there, so a name that slipped through still
 * cannot reach another directory. A name read back (from a request, from the index) is parsed, never used as a path.
 */
public final class StorageLayout {
    static final String SUFFIX = ".mp4";
    private static final Pattern CAMERA = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern DAY = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    private static final Pattern FILE = Pattern.compile("(\\d{1,15})(?:-(\\d{1,3}))?\\.mp4");
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);

    private final Path root;

    public StorageLayout(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() { return root; }

    /** The camera's directory; an id that is not a name is refused with what was expected. */
    public Path cameraDir(String camera) {
        requireCamera(camera);
        return inside(root.resolve(camera));
    }

    /**
     * A new segment's name for {@code camera} starting at {@code startMs}: {@code <start ms>.mp4}, or
     * {@code <start ms>-<n>.mp4} when a file of that millisecond exists (a reconnect within it).
     */
    public String newSegmentName(String camera, long startMs) {
        String day = DATE.format(Instant.ofEpochMilli(startMs));
        String base = camera + "/" + day + "/" + startMs;
        String name = base + SUFFIX;
        for (int n = 1; Files.exists(file(name)); n++) {
            if (n > 999) throw new IllegalStateException("more than 999 segments of " + camera + " start at " + startMs);
            name = base + "-" + n + SUFFIX;
        }
        return name;
    }

    /**
     * The file a segment name stands for: {@code <camera>/<yyyy-MM-dd>/<ms>[-n].mp4}, each part checked, the result
     * checked to lie under the root. Anything else is refused (naming the part and what was expected).
     */
    public Path file(String name) {
        Parsed p = parse(name);
        return inside(root.resolve(p.camera).resolve(p.day).resolve(p.file));
    }

    /** The start time a segment name holds. */
    public static long startOf(String name) {
        return Long.parseLong(FILE.matcher(parse(name).file).replaceFirst("$1"));
    }

    /** The camera a segment name belongs to. */
    public static String cameraOf(String name) { return parse(name).camera; }

    /** Whether {@code name} is a segment name. */
    public static boolean isSegmentName(String name) {
        try {
            parse(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The segment name of a file under the root, or null when the file is not laid out as a segment. */
    public String nameOf(Path file) {
        Path rel;
        try {
            rel = root.relativize(file.toAbsolutePath().normalize());
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (rel.getNameCount() != 3) return null;
        String name = rel.getName(0) + "/" + rel.getName(1) + "/" + rel.getName(2);
        return isSegmentName(name) ? name : null;
    }

    /** Creates the directories a new segment's file needs. */
    public Path prepare(String name) throws IOException {
        Path f = file(name);
        Files.createDirectories(f.getParent());
        return f;
    }

    public static void requireCamera(String camera) {
        if (camera == null || !CAMERA.matcher(camera).matches()) {
            throw new IllegalArgumentException("camera id: expected a name of 1-64 letters, digits, '.', '_' or '-', "
                    + "starting with a letter or digit, found " + quote(camera));
        }
    }

    private record Parsed(String camera, String day, String file) {}

    private static Parsed parse(String name) {
        if (name == null) throw new IllegalArgumentException("segment name: expected <camera>/<yyyy-MM-dd>/<ms>.mp4, found nothing");
        String[] parts = name.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("segment name: expected <camera>/<yyyy-MM-dd>/<ms>.mp4, found " + quote(name));
        }
        requireCamera(parts[0]);
        if (!DAY.matcher(parts[1]).matches()) {
            throw new IllegalArgumentException("segment name " + quote(name) + ": expected a UTC date yyyy-MM-dd, found " + quote(parts[1]));
        }
        if (!FILE.matcher(parts[2]).matches()) {
            throw new IllegalArgumentException("segment name " + quote(name) + ": expected <start ms>.mp4, found " + quote(parts[2]));
        }
        return new Parsed(parts[0], parts[1], parts[2]);
    }

    private Path inside(Path p) {
        Path n = p.toAbsolutePath().normalize();
        if (!n.startsWith(root) || n.equals(root)) throw new IllegalArgumentException(n + " is not inside " + root);
        return n;
    }

    private static String quote(String s) {
        if (s == null) return "nothing";
        String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return "\"" + cut.replaceAll("[\\p{Cntrl}]", "?") + "\"";
    }
}
