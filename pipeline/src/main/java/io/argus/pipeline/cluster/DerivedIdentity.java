package io.argus.pipeline.cluster;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PfxOptions;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.crypto.Signer;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.DSADigestSigner;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.DefaultDigestAlgorithmIdentifierFinder;
import org.bouncycastle.operator.DefaultSignatureAlgorithmIdentifierFinder;
import org.bouncycastle.operator.bc.BcECContentSignerBuilder;

/**
 * The clustered event bus's TLS identity, derived from the cluster secret: a P-256 key pair whose private scalar comes
 * from the secret ({@link ClusterKeys}), and a self-signed certificate for it signed with deterministic ECDSA (RFC
 * 6979), so every node that holds the secret makes the very same certificate. Each node presents it and trusts it
 * alone, with client authentication required: a peer without the secret has neither the key nor a certificate the
 * nodes accept, in either direction.
 *
 * <p>The stores are PKCS#12 held in memory ({@link PfxOptions} with a {@link Buffer} value), under a password drawn
 * at random for this process: the key is never written to disk. PfxOptions, not the generic KeyStoreOptions: the
 * clustered event bus copies its options through their JSON form, in which Vert.x 5.0.8 loses a generic store, while a
 * PfxOptions value travels as base64 (DerivedIdentityTest checks that it survives the copy).
 */
public final class DerivedIdentity {
    private static final String CURVE = "secp256r1";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final PrivateKey privateKey;
    private final X509Certificate certificate;
    private final char[] password;
    private final Buffer keyStore;
    private final Buffer trustStore;

    private DerivedIdentity(PrivateKey privateKey, X509Certificate certificate) throws Exception {
        this.privateKey = privateKey;
        this.certificate = certificate;
        byte[] pw = new byte[18];
        RANDOM.nextBytes(pw);
        this.password = Base64.getUrlEncoder().withoutPadding().encodeToString(pw).toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("argus-node", privateKey, password, new Certificate[] {certificate});
        this.keyStore = stored(ks);
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("argus-cluster", certificate);
        this.trustStore = stored(ts);
    }

    /** The identity of {@code seed} (at least 40 bytes derived from the secret). */
    static DerivedIdentity of(byte[] seed) {
        try {
            X9ECParameters curve = ECNamedCurveTable.getByName(CURVE);
            BigInteger n = curve.getN();
            // a scalar in 1..n-1; 48 bytes for 256-bit n leaves the modulo bias below 2^-128
            BigInteger d = new BigInteger(1, seed).mod(n.subtract(BigInteger.ONE)).add(BigInteger.ONE);
            ECPoint q = curve.getG().multiply(d).normalize();

            AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
            params.init(new ECGenParameterSpec(CURVE));
            ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
            KeyFactory keys = KeyFactory.getInstance("EC");
            PrivateKey priv = keys.generatePrivate(new ECPrivateKeySpec(d, spec));
            PublicKey pub = keys.generatePublic(new ECPublicKeySpec(new java.security.spec.ECPoint(
                    q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger()), spec));

            byte[] fingerprint = MessageDigest.getInstance("SHA-256").digest(pub.getEncoded());
            X500Name name = new X500Name("CN=argus cluster " + HexFormat.of().formatHex(fingerprint, 0, 8) + ",O=Argus");
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, new BigInteger(1, java.util.Arrays.copyOf(fingerprint, 16)),
                    Date.from(Instant.parse("2020-01-01T00:00:00Z")), Date.from(Instant.parse("9999-12-31T23:59:59Z")), name, pub)
                    // no expiry (RFC 5280 4.1.2.5): the identity lasts as long as the secret; change the secret to change it
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false,
                            new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            ContentSigner signer = new DeterministicEcdsa().build(new ECPrivateKeyParameters(d,
                    new ECDomainParameters(curve.getCurve(), curve.getG(), n, curve.getH())));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(builder.build(signer));
            return new DerivedIdentity(priv, cert);
        } catch (Exception e) {
            throw new IllegalStateException("cluster: cannot make the event bus's TLS identity: " + e.getMessage(), e);
        }
    }

    /** SHA256withECDSA with the nonce derived from key and message (RFC 6979) instead of drawn at random. */
    private static final class DeterministicEcdsa extends BcECContentSignerBuilder {
        DeterministicEcdsa() {
            super(sha256WithEcdsa(), new DefaultDigestAlgorithmIdentifierFinder().find(sha256WithEcdsa()));
        }

        private static AlgorithmIdentifier sha256WithEcdsa() {
            return new DefaultSignatureAlgorithmIdentifierFinder().find("SHA256withECDSA");
        }

        @Override
        protected Signer createSigner(AlgorithmIdentifier sigAlgId, AlgorithmIdentifier digAlgId) {
            return new DSADigestSigner(new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest())), new SHA256Digest());
        }
    }

    private Buffer stored(KeyStore ks) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ks.store(out, password);
        return Buffer.buffer(out.toByteArray());
    }

    /** This node's key and certificate (a fresh options object each time). */
    public PfxOptions keyStore() { return new PfxOptions().setValue(keyStore.copy()).setPassword(new String(password)); }

    /** The only certificate this node accepts from a peer: its own, which every holder of the secret makes alike. */
    public PfxOptions trustStore() { return new PfxOptions().setValue(trustStore.copy()).setPassword(new String(password)); }

    /**
     * Mutual TLS on the clustered event bus with this identity: presented as server and as client, the only one
     * trusted, client authentication required, and no trust-all (the event bus's client trusts every server by
     * default, and would then send to any listener that registered itself in Hazelcast).
     */
    void applyTo(EventBusOptions options) {
        options.setSsl(true).setKeyCertOptions(keyStore()).setTrustOptions(trustStore())
                .setClientAuth(ClientAuth.REQUIRED).setTrustAll(false);
    }

    /** The certificate (its public part), for tests and diagnostics. */
    public X509Certificate certificate() { return certificate; }

    PrivateKey privateKey() { return privateKey; }

    @Override
    public String toString() { return "DerivedIdentity[" + certificate.getSubjectX500Principal() + "]"; }
}
