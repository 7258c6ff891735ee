package io.argus.pipeline.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A weights file's size and full SHA-256 (hex), as announced with a promoted version: the receiving nodes check both
 * before they adopt the weights (the version names only the hash's first 12 digits).
 */
record WeightsDigest(long size, String sha256) {
    /** Reads the whole file: blocking, on a worker thread. */
    static WeightsDigest of(Path file) throws IOException {
        MessageDigest md = hasher();
        long size = 0;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
                size += n;
            }
        }
        return new WeightsDigest(size, HexFormat.of().formatHex(md.digest()));
    }

    /** A new SHA-256 digest (every JVM has one). */
    static MessageDigest hasher() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }
}
