package io.argus.pipeline.cluster;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the values Argus keeps in the cluster's maps with AES-256-GCM under the key derived from the cluster secret
 * ({@link ClusterKeys}). Hazelcast's traffic and its maps are readable by any member, and open-source Hazelcast cannot
 * keep a member out that learnt the cluster name; sealed, such a member reads no camera address or credential, and
 * cannot write a value that a node accepts. The associated data is the map's name and the key, so a sealed value
 * moved to another key or map does not open. Each sealing draws a random 96-bit nonce: what a sealed value can still
 * be is replayed at its own key (an older lease, say), which the readers of each map handle.
 *
 * <p>Sealed form: {@value #PREFIX} followed by the URL-safe base64 of nonce and ciphertext with its tag.
 */
public final class Sealer {
    static final String PREFIX = "argus1:";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    Sealer(byte[] key) {
        if (key.length != 32) throw new IllegalArgumentException("an AES-256 key has 32 bytes, found " + key.length);
        this.key = new SecretKeySpec(key, "AES");
    }

    /** {@code plain} sealed for {@code key} of {@code map}. */
    public String seal(String map, String mapKey, String plain) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(associated(map, mapKey));
            byte[] sealed = c.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * The plain text of a value read at {@code key} of {@code map}.
     *
     * @throws NotSealed what is wrong with it, in words (never its content)
     */
    public String open(String map, String mapKey, Object stored) throws NotSealed {
        if (!(stored instanceof String text)) {
            throw new NotSealed("not a sealed value (a " + (stored == null ? "null" : stored.getClass().getSimpleName()) + ")");
        }
        if (!text.startsWith(PREFIX)) throw new NotSealed("not a sealed value (no " + PREFIX + " prefix)");
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(text.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new NotSealed("not a sealed value (broken base64)");
        }
        if (raw.length < NONCE_BYTES + TAG_BITS / 8) throw new NotSealed("not a sealed value (" + raw.length + " bytes, too short)");
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
            c.updateAAD(associated(map, mapKey));
            return new String(c.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new NotSealed("does not open with this cluster's key (sealed with another secret, for another key, or altered)");
        } catch (GeneralSecurityException e) {
            throw new NotSealed("does not open: " + e.getClass().getSimpleName());
        }
    }

    private static byte[] associated(String map, String mapKey) {
        return (map + "\u0000" + mapKey).getBytes(StandardCharsets.UTF_8);
    }

    /** A stored value that is not one this cluster sealed for its place; the message never holds the value. */
    public static final class NotSealed extends Exception {
        NotSealed(String reason) { super(reason, null, false, false); }
    }
}
