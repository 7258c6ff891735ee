package io.argus.pipeline.cluster;

import io.argus.pipeline.config.ClusterSecret;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * What the {@link ClusterSecret} protects, each derived from it by HKDF-SHA256 under a label of its own (so no derived
 * value tells anything about another, or about the secret):
 * <ul>
 * <li>the <b>Hazelcast cluster name</b>, {@code <cluster.name>-<32 hex digits>}: Hazelcast refuses a member or client
 *     with another name, so one without the secret cannot join even knowing the configured name. Hazelcast's own
 *     traffic is cleartext, so a sniffer of the cluster network learns this name (not the secret);</li>
 * <li>the <b>map key</b>, AES-256-GCM: every value Argus puts in a cluster map is sealed with it ({@link Sealer}), so a
 *     member that joined with a sniffed name reads only ciphertext and forges nothing;</li>
 * <li>the <b>event bus's TLS identity</b> ({@link DerivedIdentity}): a P-256 key pair and its certificate, this node's
 *     key and the only certificate it trusts, so only holders of the secret talk over the clustered event bus.</li>
 * </ul>
 */
public final class ClusterKeys {
    /** HKDF's salt: fixed, naming the scheme (the secret itself is the only secret input). */
    private static final byte[] SALT = "argus cluster secret v1".getBytes(StandardCharsets.UTF_8);
    static final String NAME_LABEL = "hazelcast cluster name";
    static final String SEAL_LABEL = "cluster map values (AES-256-GCM)";
    static final String IDENTITY_LABEL = "event bus identity (P-256)";

    private final byte[] secret;
    private final String source;
    private final Sealer sealer;
    private DerivedIdentity identity;

    public ClusterKeys(ClusterSecret secret) {
        this.secret = secret.bytes();
        this.source = secret.source();
        this.sealer = new Sealer(derive(SEAL_LABEL, 32));
    }

    /** {@code length} bytes derived from the secret for {@code label}. */
    byte[] derive(String label, int length) {
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(new HKDFParameters(secret, SALT, label.getBytes(StandardCharsets.UTF_8)));
        byte[] out = new byte[length];
        hkdf.generateBytes(out, 0, length);
        return out;
    }

    /** The name the nodes join Hazelcast under: the configured name and a part only the secret gives. */
    public String hazelcastName(String configuredName) {
        return configuredName + "-" + HexFormat.of().formatHex(derive(NAME_LABEL, 16));
    }

    /** Seals and opens the values of the cluster's maps. */
    public Sealer sealer() { return sealer; }

    /** The event bus's TLS identity (made on first use: a key pair and a signature). */
    public synchronized DerivedIdentity identity() {
        if (identity == null) identity = DerivedIdentity.of(derive(IDENTITY_LABEL, 48));
        return identity;
    }

    /** Where the secret came from (never the secret). */
    public String source() { return source; }

    @Override
    public String toString() { return "ClusterKeys[from " + source + "]"; }
}
