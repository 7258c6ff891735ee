package io.argus.pipeline.training;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Online training keeps camera frames, their labels and model weights: nothing another user of the host should
 * read. Its directories are created readable by their owner only (0700) and its files 0600; a directory that an
 * older version created open to others is closed when training opens it. File systems without POSIX permissions are
 * left as they are.
 */
final class OwnerOnly {
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnly() {}

    /** Creates {@code dir} and any missing parent 0700, or makes an existing {@code dir} 0700; returns it. */
    static Path directories(Path dir) throws IOException {
        if (!posix(dir)) return Files.createDirectories(dir);
        FileAttribute<Set<PosixFilePermission>> owner = PosixFilePermissions.asFileAttribute(DIRECTORY);
        Files.createDirectories(dir, owner);
        if (!Files.getPosixFilePermissions(dir).equals(DIRECTORY)) {
            try {
                Files.setPosixFilePermissions(dir, DIRECTORY);
            } catch (IOException e) {
                // another user's directory that this one may write in: its owner decides who reads it
            }
        }
        return dir;
    }

    /** A new, empty 0600 file in {@code dir} named {@code .<prefix><random>.tmp} (a leftover goes at the next start). */
    static Path temporaryFile(Path dir, String prefix) throws IOException {
        return posix(dir)
                ? Files.createTempFile(dir, "." + prefix, ".tmp", PosixFilePermissions.asFileAttribute(FILE))
                : Files.createTempFile(dir, "." + prefix, ".tmp");
    }

    private static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
