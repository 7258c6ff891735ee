package io.argus.pipeline.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The rule for a local file that something outside Argus names (a camera's video file, weights to adopt): Argus
 * reads it only when it is a regular file outside the kernel's trees {@code /proc}, {@code /sys} and {@code /dev}.
 * Those trees hold views of the kernel and of devices, some endless ({@code /dev/zero}), some secret
 * ({@code /proc/self/environ}), and a device file, a named pipe or a socket can make a reader wait forever; none is
 * ever a video or a weights file. Symbolic links are followed first, so a link cannot lead a check astray.
 */
public final class LocalFiles {
    /** What a path turned out to be. */
    public enum Kind {
        REGULAR("a regular file"), DIRECTORY("a directory"), PIPE("a named pipe"), SOCKET("a socket"),
        DEVICE("a device"), OTHER("not a regular file"), MISSING("missing");

        /** In words, for messages. */
        public final String words;

        Kind(String words) { this.words = words; }
    }

    private static final List<Path> KERNEL_TREES = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"));

    private LocalFiles() {}

    /** Whether {@code path} (made absolute and normal) lies in {@code /proc}, {@code /sys} or {@code /dev}. */
    public static boolean inKernelTree(Path path) {
        Path p = path.toAbsolutePath().normalize();
        for (Path tree : KERNEL_TREES) if (p.startsWith(tree)) return true;
        return false;
    }

    /** What {@code path} is, following symbolic links. */
    public static Kind kind(Path path) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return Kind.MISSING;
        } catch (IOException | SecurityException e) {
            return Kind.OTHER;
        }
        if (a.isRegularFile()) return Kind.REGULAR;
        if (a.isDirectory()) return Kind.DIRECTORY;
        try {
            int type = ((Integer) Files.getAttribute(path, "unix:mode")) & 0170000; // S_IFMT of stat(2)
            return switch (type) {
                case 0010000 -> Kind.PIPE;
                case 0140000 -> Kind.SOCKET;
                case 0020000, 0060000 -> Kind.DEVICE;
                default -> Kind.OTHER;
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return Kind.OTHER; // a platform without the unix view: still not a regular file
        }
    }

    /**
     * The real path of {@code path} (links resolved) when it is a regular file outside the kernel's trees; else an
     * IllegalArgumentException that starts with {@code what} and says what was found instead.
     */
    public static Path requireRegular(String what, Path path) {
        Path abs = path.toAbsolutePath().normalize();
        if (inKernelTree(abs)) throw new IllegalArgumentException(what + ": " + kernelTreeReason(abs));
        Path real;
        try {
            real = abs.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": expected a regular file, found " + Kind.MISSING.words + " (" + abs + ")");
        }
        if (inKernelTree(real)) {
            throw new IllegalArgumentException(what + ": " + abs + " leads into /proc, /sys or /dev, whose files are never "
                    + "video or weights files");
        }
        Kind kind = kind(real);
        if (kind != Kind.REGULAR) {
            throw new IllegalArgumentException(what + ": expected a regular file, found " + kind.words + " (" + abs + ")");
        }
        return real;
    }

    /** Why a path in a kernel tree is refused. */
    public static String kernelTreeReason(Path abs) {
        return abs + " is in /proc, /sys or /dev, whose files are never video or weights files";
    }
}
