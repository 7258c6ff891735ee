package io.argus.detector.io;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Replaces a file so that a reader, or a restart after kill -9 or a power cut, finds either the old content or the
 * new one, never a mix: the bytes go to a temporary file in the same directory (same file system, so the rename is
 * atomic), are forced to disk, renamed over the file, and the directory is forced so the rename itself survives a
 * crash. The file and any directory it creates are their owner's only ({@link OwnerOnly}). On failure (a full disk
 * above all) the temporary file is removed, since leaving it would keep the disk full, and the error names the file
 * the caller meant to write; the previous content stays as it was.
 *
 * <p>Temporary files are named {@code .<name>.<random>.tmp}: hidden, and never matching the patterns readers list
 * ({@code *.json}, {@code *.weights}...), so a crash's leftover is never read as a whole file;
 * {@link #removeLeftovers} deletes them at the next start.
 */
public final class AtomicFile {
    private AtomicFile() {}

    /** Writes the content through {@code out} (which must not close the stream). */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    public static void write(Path file, byte[] bytes) {
        write(file, ByteBuffer.wrap(bytes));
    }

    public static void writeString(Path file, String text) {
        write(file, ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    public static void write(Path file, ByteBuffer bytes) {
        write(file, null, bytes); // written to the channel whole: no copy through a stream's buffer
    }

    public static void write(Path file, Content content) {
        write(file, content, null);
    }

    /** Copies {@code from} into {@code file}, atomically as above. */
    public static void copy(Path from, Path file) {
        write(file, out -> Files.copy(from, out));
    }

    private static void write(Path file, Content content, ByteBuffer bytes) {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            OwnerOnly.directories(dir);
            tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            keepPermissions(file, tmp);
            if (bytes == null && HaltMidWrite.armed()) { // a test may cut this write: take the content whole
                java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
                content.writeTo(whole);
                bytes = ByteBuffer.wrap(whole.toByteArray());
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                if (bytes != null) {
                    HaltMidWrite.beforeWriting(file, ch, bytes);
                    ByteBuffer b = bytes.duplicate();
                    while (b.hasRemaining()) ch.write(b);
                } else {
                    OutputStream out = new java.io.BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
                    content.writeTo(out);
                    out.flush();
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
            forceDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + reason(e), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write's own error says more; the leftover goes at the next start
                }
            }
        }
    }

    /** Forces a directory's entries (a rename, a delete) to disk; file systems that cannot are left as they are. */
    public static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems (and platforms) cannot open or sync a directory: the rename is still atomic there
        }
    }

    /** True for a temporary file of this class (a write that never finished). */
    public static boolean isTemporary(Path p) {
        String n = p.getFileName().toString();
        return n.startsWith(".") && n.endsWith(".tmp");
    }

    /** Deletes the temporary files a killed writer left in {@code dir}; returns them (for a log line). */
    public static List<Path> removeLeftovers(Path dir) {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(dir)) return removed;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(AtomicFile::isTemporary).toList()) {
                if (Files.deleteIfExists(p)) removed.add(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + dir + ": " + reason(e), e);
        }
        return removed;
    }

    /** The IOException's words: for a full disk the JDK says "No space left on device" (the OS's ENOSPC text). */
    private static String reason(IOException e) {
        String m = e.getMessage();
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) m = fs.getReason();
        return m != null ? m : e.getClass().getSimpleName();
    }

    /**
     * The file is its owner's only ({@link OwnerOnly}): createTempFile already makes it rw-------, which a new file
     * keeps; one that replaces a file keeps that file's owner bits (an executable stays executable) but never its
     * group's or others' (an older version's rw-r--r-- file becomes rw------- here).
     */
    private static void keepPermissions(Path file, Path tmp) throws IOException {
        if (!tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) return;
        Files.setPosixFilePermissions(tmp, Files.exists(file) ? OwnerOnly.replacing(Files.getPosixFilePermissions(file)) : OwnerOnly.FILE);
    }
}
