package io.argus.pipeline.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;

/**
 * The generated access token on disk, {@code <cacheDir>/http-token}: one line, readable by its owner only. The file
 * is always born with mode 0600 (a temporary file created with that mode, written, then renamed over the old one), so
 * there is no moment when another user could read it, and a reader never sees half a token. Blocking file I/O: never
 * call it on an event loop.
 */
public final class TokenFile {
    /** The file's name in the cache directory. */
    public static final String NAME = "http-token";
    /** 32 random bytes: 256 bits, 43 characters of URL-safe base64. */
    static final int TOKEN_BYTES = 32;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenFile() {}

    public static Path in(Path cacheDir) { return cacheDir.resolve(NAME); }

    /** A new random token: URL-safe base64 without padding, so it travels in URLs and cookies unescaped. */
    public static String generate() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The token in {@code file}, or empty when there is no such file. */
    public static Optional<String> read(Path file) throws IOException {
        try {
            String token = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) throw new IOException(file + ": empty token file (delete it to generate a new token)");
            return Optional.of(token);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Writes {@code token} to {@code file} (mode 0600), replacing what was there in one step. */
    public static void write(Path file, String token) throws IOException {
        Path tmp = temporaryWith(file, token);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The token in {@code file}; when there is none yet, a new one written there. */
    static Created readOrCreate(Path file) throws IOException {
        Optional<String> existing = read(file);
        if (existing.isPresent()) return new Created(existing.get(), false);
        String token = generate();
        Path tmp = temporaryWith(file, token);
        try {
            // a link, not a move: of two servers starting at once on one cache, the second keeps the first's token
            Files.createLink(file, tmp);
            return new Created(token, true);
        } catch (FileAlreadyExistsException e) {
            return new Created(read(file).orElseThrow(() -> e), false);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** A token and whether this start generated it. */
    record Created(String token, boolean isNew) {}

    /** A new file next to {@code file} holding {@code token}, created with mode 0600 (never readable by others). */
    private static Path temporaryWith(Path file, String token) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (UnsupportedOperationException e) {
            throw new IOException(dir + ": cannot create a file readable by its owner only (no POSIX permissions there)", e);
        }
        try {
            Files.writeString(tmp, token + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }
}
