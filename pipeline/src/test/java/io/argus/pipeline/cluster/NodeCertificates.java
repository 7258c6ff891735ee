package io.argus.pipeline.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Key and trust stores for cluster tests, made with the JDK's own keytool (a self-signed certificate per node, and a
 * trust store of the nodes' certificates): what an operator does with keytool or openssl.
 */
final class NodeCertificates {
    private NodeCertificates() {}

    /** A PKCS#12 key store with a new key pair and self-signed certificate for {@code node}. */
    static Path keyStore(Path dir, String node, String password) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path ks = dir.resolve(node + ".p12");
        Files.deleteIfExists(ks);
        keytool("-genkeypair", "-alias", node, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + node,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", password,
                "-ext", "SAN=ip:127.0.0.1,dns:localhost");
        return ks;
    }

    /** A PKCS#12 trust store holding the certificates of the given key stores (opened with {@code keyStorePassword}). */
    static Path trustStore(Path dir, String password, String keyStorePassword, Path... keyStores)
            throws IOException, InterruptedException {
        Path ts = dir.resolve("trust-" + keyStores.length + "-" + Math.abs(java.util.Arrays.hashCode(keyStores)) + ".p12");
        Files.deleteIfExists(ts);
        for (Path ks : keyStores) {
            String alias = ks.getFileName().toString().replace(".p12", "");
            Path cer = dir.resolve(alias + ".cer");
            keytool("-exportcert", "-alias", alias, "-keystore", ks.toString(), "-storepass", keyStorePassword, "-file", cer.toString());
            keytool("-importcert", "-noprompt", "-alias", alias, "-file", cer.toString(), "-storetype", "PKCS12",
                    "-keystore", ts.toString(), "-storepass", password);
        }
        return ts;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IOException("keytool " + String.join(" ", args) + ": " + out);
    }
}
