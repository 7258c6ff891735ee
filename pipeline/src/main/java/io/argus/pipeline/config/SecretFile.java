package io.argus.pipeline.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * A cluster secret on disk: one line, readable and writable by its owner only. Such a file is always born with mode
 * 0600 (a temporary file created with that mode, written, then linked or moved into place), so no other user could
 * read it for a moment; a file that others may read or write is refused, since whoever can read it can join the
 * cluster and whoever can write it can choose the secret. Blocking file I/O: never call it on an event loop.
 */
public final class SecretFile {
    /** The generated secret's name in the cache directory (a cluster entirely on loopback). */
    public static final String NAME = "cluster-secret";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
    private static final SecureRandom RANDOM = new SecureRandom();

    private SecretFile() {}

    /** Where a cluster on loopback keeps its generated secret. */
    public static Path in(Path cacheDir) { return cacheDir.resolve(NAME); }

    /**
     * The secret in {@code file}, or empty when there is no such file. Refused, naming the file and what is wrong, when
     * it is not a regular file, is readable or writable by others, is empty or shorter than
     * {@link ClusterSecret#MIN_LENGTH}.
     */
    public static Optional<ClusterSecret> read(Path file) throws IOException {
        String text;
        try {
            if (Files.exists(file) && !Files.isRegularFile(file)) {
                throw new IOException(file + " is not a regular file");
            }
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
            for (PosixFilePermission p : mode) if (OTHERS.contains(p)) open.add(p);
            if (!open.isEmpty()) {
                throw new IOException(file + " may be read or written by other users (mode " + PosixFilePermissions.toString(mode)
                        + "): whoever reads it can join the cluster; chmod 600 it");
            }
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (UnsupportedOperationException e) {
            throw new IOException(file + ": its permissions cannot be checked (no POSIX permissions there)", e);
        }
        if (text.isEmpty()) throw new IOException(file + " is empty (expected a secret of at least " + ClusterSecret.MIN_LENGTH + " characters)");
        if (text.length() < ClusterSecret.MIN_LENGTH) {
            throw new IOException(file + " holds " + text.length() + " characters, expected at least " + ClusterSecret.MIN_LENGTH
                    + " (make one with `argus cluster secret --out " + file + "`)");
        }
        return Optional.of(new ClusterSecret(text, file.toString()));
    }

    /** Writes {@code secret} to a new {@code file} (mode 0600); an existing file is never replaced. */
    public static void create(Path file, String secret) throws IOException {
        Path tmp = temporaryWith(file, secret);
        try {
            Files.createLink(file, tmp);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The secret in {@code file}; when there is none yet, a new one written there. */
    static Created readOrCreate(Path file) throws IOException {
        Optional<ClusterSecret> existing = read(file);
        if (existing.isPresent()) return new Created(existing.get(), false);
        String secret = ClusterSecret.generate();
        try {
            // a link, not a move: of two nodes starting at once on one cache, the second keeps the first's secret
            create(file, secret);
            return new Created(new ClusterSecret(secret, file.toString()), true);
        } catch (FileAlreadyExistsException e) {
            return new Created(read(file).orElseThrow(() -> e), false);
        }
    }

    /** A secret and whether this start generated it. */
    record Created(ClusterSecret secret, boolean isNew) {}

    /** A new file next to {@code file} holding {@code secret}, created with mode 0600 (never readable by others). */
    private static Path temporaryWith(Path file, String secret) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (UnsupportedOperationException e) {
            throw new IOException(dir + ": cannot create a file readable by its owner only (no POSIX permissions there)", e);
        }
        try {
            Files.writeString(tmp, secret + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }
}
