package io.argus.pipeline.config;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret every node of a cluster shares, and what it proves: only a process that holds it derives the Hazelcast
 * cluster name the nodes join under, the key that seals every value Argus keeps in the cluster's maps, and the event
 * bus's TLS identity ({@link ClusterKeys}). It comes from {@code cluster.secret} (or {@code ARGUS_CLUSTER_SECRET}),
 * from {@code cluster.secretFile}, or, on a cluster entirely on loopback, from a file generated at the first start
 * ({@link SecretFile}). It is never printed: {@link #toString} names where it came from, not what it is.
 */
public final class ClusterSecret {
    /** Shorter secrets are refused: a guessable one would let anyone derive everything it protects. */
    public static final int MIN_LENGTH = 32;
    /** A generated secret: 32 random bytes (256 bits), 43 characters of URL-safe base64. */
    static final int GENERATED_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] value;
    private final String source;

    /**
     * @param value  the secret's text, at least {@link #MIN_LENGTH} characters (checked where it is read, which can
     *               name the key or file)
     * @param source where it came from, for messages: {@code cluster.secret}, a file's path
     */
    public ClusterSecret(String value, String source) {
        this.value = value.strip().getBytes(StandardCharsets.UTF_8);
        this.source = source;
    }

    /** A new random secret, as {@code argus cluster secret} prints it. */
    public static String generate() {
        byte[] bytes = new byte[GENERATED_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The secret's bytes, the input of every derivation (a copy): for cluster/ClusterKeys alone. */
    public byte[] bytes() { return value.clone(); }

    /** Where the secret came from (never the secret). */
    public String source() { return source; }

    /** Never the secret itself: a config or a log line that prints this must not leak it. */
    @Override
    public String toString() { return "ClusterSecret[from " + source + "]"; }
}
