package io.argus.pipeline.http;

import com.sun.security.auth.module.UnixSystem;
import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.config.TokenStrength;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The generated access token on disk, {@code <cacheDir>/http-token}: one line, readable by its owner only. The file
 * is always born with mode 0600 (a temporary file created with that mode, written, then renamed over the old one), so
 * there is no moment when another user could read it, and a reader never sees half a token. A file that is not so
 * (another user's, or one others may read or change) is refused when read ({@link #read}). Blocking file I/O: never
 * call it on an event loop.
 */
public final class TokenFile {
    /** The file's name in the cache directory. */
    public static final String NAME = "http-token";
    /** 32 random bytes: 256 bits, 43 characters of URL-safe base64. */
    static final int TOKEN_BYTES = 32;
    /** A token file is one short line; more than this is not a token file. */
    static final int MAX_BYTES = 4096;
    /** How to replace a refused token file with a good one. */
    static final String ROTATE = "run `argus token rotate` for a new token file (owner-only, mode 0600)";

    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenFile() {}

    public static Path in(Path cacheDir) { return cacheDir.resolve(NAME); }

    /** A new random token: URL-safe base64 without padding, so it travels in URLs and cookies unescaped. */
    public static String generate() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The token in {@code file}, or empty when there is no such file. The file must be one only its owner could have
     * written, or the token would be whatever another user of the machine chose: a plain file (not a link) owned by the
     * user Argus runs as, that the group and others can neither read nor write, holding a real token (at least
     * {@link TokenStrength#MIN_LENGTH} visible characters). Anything else is {@link Refused}, saying why and how to fix
     * it. The file's identity is checked again after reading, so it cannot be swapped in between.
     */
    public static Optional<String> read(Path file) throws IOException {
        Map<String, Object> before;
        try {
            before = Files.readAttributes(file, "unix:mode,uid,ino,dev", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw new Refused(file + ": cannot tell who may read or change it (no POSIX permissions there); keep the cache"
                    + " on a POSIX file system, or set http.token");
        }
        String problem = ownershipProblem(file, before);
        if (problem != null) throw new Refused(problem);
        byte[] bytes;
        try (SeekableByteChannel ch = Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer b = ByteBuffer.allocate(MAX_BYTES + 1);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // a token file is one short line: what is beyond MAX_BYTES is never read
            }
            bytes = java.util.Arrays.copyOf(b.array(), b.position());
        }
        Map<String, Object> after = Files.readAttributes(file, "unix:mode,uid,ino,dev", LinkOption.NOFOLLOW_LINKS);
        if (!before.get("ino").equals(after.get("ino")) || !before.get("dev").equals(after.get("dev"))) {
            throw new IOException(file + ": replaced while it was read; the next look will read the new one");
        }
        problem = ownershipProblem(file, after);
        if (problem != null) throw new Refused(problem);
        if (bytes.length > MAX_BYTES) {
            throw new Refused(file + ": expected one line holding a token, found more than " + MAX_BYTES + " bytes; " + ROTATE);
        }
        String token = new String(bytes, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) throw new Refused(file + ": empty token file; " + ROTATE);
        String weakness = TokenStrength.weakness(token);
        if (weakness != null) throw new Refused(file + ": " + weakness + " (a generated one has 43); " + ROTATE);
        return Optional.of(token);
    }

    /** What is wrong with who owns {@code file} and who may use it ({@code unix:} attributes), or null. */
    private static String ownershipProblem(Path file, Map<String, Object> unix) {
        int mode = (Integer) unix.get("mode");
        int type = mode & 0170000;
        if (type == 0120000) return file + ": a symbolic link; expected the token file itself. Delete the link, then " + ROTATE;
        if (type != 0100000) return file + ": not a plain file; expected the token file. Remove it, then " + ROTATE;
        long owner = ((Number) unix.get("uid")).longValue();
        long self = new UnixSystem().getUid();
        if (owner != self) {
            return file + ": owned by uid " + owner + ", not by the user Argus runs as (uid " + self + "), so another user"
                    + " chose the token; " + ROTATE;
        }
        int permissions = mode & 0777;
        if ((permissions & 0077) != 0) {
            return file + ": mode " + String.format("%04o", permissions) + " lets the group or others read or change the token;"
                    + " expected 0600 (rw-------). Run `chmod 600 " + file + "` (and `argus token rotate` if someone may"
                    + " have read it)";
        }
        return null;
    }

    /** A token file that must not be used: the message says why, and how to fix it. */
    public static final class Refused extends IOException {
        Refused(String message) { super(message); }
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
        OwnerOnly.directories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
        try {
            Files.createFile(tmp, OwnerOnly.attribute(OwnerOnly.FILE));
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
