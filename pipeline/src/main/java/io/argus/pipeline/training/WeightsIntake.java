package io.argus.pipeline.training;

import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.config.LocalFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Copies weights from a local file (one named in the import directory, one fetched from another node) into the
 * registry's directory, hashing them on the way: a single bounded read of a regular file. The source must be a
 * regular file outside /proc, /sys and /dev ({@link LocalFiles}); its size must be one a weights file of the network
 * can have ({@link WeightsCheck}) before a byte is read, and at most that many bytes are read (a file that grows
 * meanwhile is refused), so an adoption always ends. The copy is 0600 and forced to disk; it is what gets checked,
 * hashed and kept, so the source changing afterwards changes nothing. Blocking: call it on a worker.
 */
final class WeightsIntake {
    private WeightsIntake() {}

    /** {@code what}: how errors name the source (e.g. {@code file}). */
    static StagedWeights copy(String what, Path source, Path dir, WeightsCheck check) {
        Path real = LocalFiles.requireRegular(what, source);
        long size;
        try {
            size = Files.size(real);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": cannot read " + source + " (" + e.getClass().getSimpleName() + ")");
        }
        check.checkSize(what, size);
        long limit = check.readLimit();
        Path tmp = null;
        try {
            tmp = OwnerOnly.temporaryFile(dir, "adopt-");
            MessageDigest sha = sha256();
            long n = 0;
            try (InputStream in = Files.newInputStream(real, LinkOption.NOFOLLOW_LINKS);
                 FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                byte[] buf = new byte[1 << 16];
                for (int r; (r = in.read(buf, 0, (int) Math.min(buf.length, limit + 1 - n))) > 0; ) {
                    n += r;
                    if (n > limit) throw new IllegalArgumentException(what + ": grew while it was read (expected " + check.expectedSize() + ")");
                    sha.update(buf, 0, r);
                    ByteBuffer b = ByteBuffer.wrap(buf, 0, r);
                    while (b.hasRemaining()) out.write(b);
                }
                out.force(true);
            }
            check.checkFile(what, tmp, n);
            StagedWeights staged = new StagedWeights(tmp, HexFormat.of().formatHex(sha.digest()), n);
            tmp = null;
            return staged;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy weights into " + dir + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) discard(tmp);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Removes a staged file that will not become a version. */
    static void discard(Path staged) {
        try {
            Files.deleteIfExists(staged);
        } catch (IOException e) {
            // a temporary file: removed at the next start in any case
        }
    }
}
