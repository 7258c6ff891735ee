package io.argus.pipeline.config;

import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.JksOptions;
import io.vertx.core.net.KeyStoreOptionsBase;
import io.vertx.core.net.PfxOptions;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Locale;

/**
 * {@code cluster.tls}: mutual TLS on the clustered event bus, the connections that carry detections, events and
 * control between nodes. Each node presents the certificate of its key store and accepts only peers whose
 * certificate its trust store vouches for (client authentication required), so a machine without a trusted
 * certificate can neither read the traffic nor inject into it. Both stores are PKCS#12 ({@code .p12}, {@code .pfx})
 * or JKS ({@code .jks}), by extension or {@code type}; they are opened at startup, so a wrong password or a broken
 * file fails there, naming the key and the file.
 *
 * <p>Hazelcast's own connections (membership and the shared maps) are not covered: its TLS is an Enterprise feature
 * (docs/cluster.md).
 */
public record ClusterTls(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword, String type) {

    /** The section, or null when {@code keyStore} is not set (plain TCP). */
    static ClusterTls read(ConfigNode n) {
        Path keyStore = n.path("keyStore", null, true);
        String keyPassword = n.string("keyStorePassword", "");
        Path trustStore = n.path("trustStore", null, true);
        String trustPassword = n.string("trustStorePassword", "");
        String type = n.oneOf("type", "auto", "auto", "pkcs12", "jks");
        n.finish();
        if (keyStore == null) {
            if (trustStore != null) {
                throw new ConfigException(n.key("keyStore"), "a trustStore without a keyStore: TLS between nodes needs "
                        + "this node's certificate too (set keyStore, or remove the tls section for plain TCP)");
            }
            return null;
        }
        if (trustStore == null) {
            throw new ConfigException(n.key("trustStore"), "required with keyStore: the certificates of the nodes to "
                    + "accept (every node checks its peers)");
        }
        ClusterTls tls = new ClusterTls(keyStore, keyPassword, trustStore, trustPassword, type);
        tls.open(n.key("keyStore"), keyStore, keyPassword, true);
        tls.open(n.key("trustStore"), trustStore, trustPassword, false);
        return tls;
    }

    /** The store's type: {@code type}, or by the file's extension (JKS for .jks, else PKCS#12). */
    public String typeOf(Path file) {
        if (!type.equals("auto")) return type.toUpperCase(Locale.ROOT);
        return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
    }

    private void open(String key, Path file, String password, boolean needsPrivateKey) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore ks = KeyStore.getInstance(typeOf(file));
            ks.load(in, password.toCharArray());
            boolean hasKey = false;
            boolean hasCertificate = false;
            for (String alias : java.util.Collections.list(ks.aliases())) {
                hasKey |= ks.isKeyEntry(alias);
                hasCertificate |= ks.getCertificate(alias) != null;
            }
            if (needsPrivateKey && !hasKey) {
                throw new ConfigException(key, file + " holds no private key: this node's key and certificate belong there");
            }
            if (!hasCertificate) throw new ConfigException(key, file + " holds no certificate");
        } catch (ConfigException e) {
            throw e;
        } catch (Exception e) {
            throw new ConfigException(key, "cannot open " + file + " as " + typeOf(file) + ": " + e.getMessage()
                    + (e.getMessage() != null && e.getMessage().contains("password") ? " (check the password key beside it)" : ""));
        }
    }

    /** Turns on TLS with client authentication on the clustered event bus. */
    public void applyTo(EventBusOptions options) {
        // JksOptions/PfxOptions, not the generic KeyStoreOptions: the clustered event bus copies its options through
        // their JSON form, in which Vert.x 5.0.8 loses a generic store ("Key/certificate is mandatory for SSL")
        options.setSsl(true)
                .setKeyCertOptions(store(keyStore, keyStorePassword))
                .setTrustOptions(store(trustStore, trustStorePassword))
                .setClientAuth(ClientAuth.REQUIRED)
                // the event bus's client trusts every server by default (EventBusOptions.DEFAULT_TRUST_ALL): a node
                // would then send detections to any listener that joined Hazelcast with any certificate
                .setTrustAll(false);
    }

    private KeyStoreOptionsBase store(Path file, String password) {
        return typeOf(file).equals("JKS")
                ? new JksOptions().setPath(file.toString()).setPassword(password)
                : new PfxOptions().setPath(file.toString()).setPassword(password);
    }

    /** Passwords are never printed. */
    @Override
    public String toString() {
        return "ClusterTls[keyStore=" + keyStore + ", trustStore=" + trustStore + ", type=" + type + "]";
    }
}
