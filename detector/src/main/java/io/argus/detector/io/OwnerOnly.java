package io.argus.detector.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * What Argus keeps on disk (the cache, datasets, model versions, zones, tokens) is its own business: camera pictures,
 * labels of people's homes, access tokens. Files it writes are readable by their owner only (0600) and directories it
 * creates are the owner's only (0700), whatever the umask; another user of the machine reads none of it.
 */
public final class OwnerOnly {
    /** rw-------: a file Argus writes. */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    /** rwx------: a directory Argus creates. */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_BITS =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private OwnerOnly() {}

    /**
     * Creates {@code dir} and whichever of its parents are missing, each new one rwx------; directories that exist are
     * left as they are (a configured cache in a shared place is the operator's choice, and never chmod'ed behind their
     * back). On a file system without POSIX permissions the directories are created plainly.
     */
    public static Path directories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) return dir;
        try {
            return Files.createDirectories(dir, attribute(DIRECTORY));
        } catch (UnsupportedOperationException e) {
            return Files.createDirectories(dir);
        }
    }

    /**
     * As {@link #directories}, and {@code dir} itself made rwx------ when it exists open to others: for directories
     * that are Argus's own (a training dataset, model versions), which an older version may have created 0755. A
     * directory of another user that this one may write in is left to its owner.
     */
    public static Path privateDirectory(Path dir) throws IOException {
        directories(dir);
        try {
            if (openToOthers(Files.getPosixFilePermissions(dir))) Files.setPosixFilePermissions(dir, DIRECTORY);
        } catch (UnsupportedOperationException | IOException e) {
            // no POSIX permissions there, or not ours to change
        }
        return dir;
    }

    /** A new, empty rw------- file in {@code dir} named {@code .<prefix><random>.tmp} (never read as a whole file). */
    public static Path temporaryFile(Path dir, String prefix) throws IOException {
        try {
            return Files.createTempFile(dir, "." + prefix, ".tmp", attribute(FILE));
        } catch (UnsupportedOperationException e) {
            return Files.createTempFile(dir, "." + prefix, ".tmp");
        }
    }

    /**
     * The permissions for a file that replaces one with {@code previous}: the owner's bits it had (an executable stays
     * executable for its owner), at least read and write, and nothing for the group or others, so a file an older
     * version wrote rw-r--r-- becomes rw------- at its next write.
     */
    public static Set<PosixFilePermission> replacing(Set<PosixFilePermission> previous) {
        Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission bit : previous) if (OWNER_BITS.contains(bit)) p.add(bit);
        p.add(PosixFilePermission.OWNER_READ);
        p.add(PosixFilePermission.OWNER_WRITE);
        return p;
    }

    /** Whether {@code p} lets the group or others read, write or enter. */
    public static boolean openToOthers(Set<PosixFilePermission> p) {
        for (PosixFilePermission bit : p) if (!OWNER_BITS.contains(bit)) return true;
        return false;
    }

    public static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> p) {
        return PosixFilePermissions.asFileAttribute(p);
    }
}
