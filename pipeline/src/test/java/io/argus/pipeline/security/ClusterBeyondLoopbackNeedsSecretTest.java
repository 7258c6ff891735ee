package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.cluster.ClusterKeys;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.SecretSetting;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node clustered beyond loopback without a cluster secret does not start, and says how to make one; the secret comes
 * from {@code cluster.secret}, {@code ARGUS_CLUSTER_SECRET} or an owner-only {@code cluster.secretFile}, and is never
 * printed; on loopback a node generates one (0600) and logs where, not what; {@code argus cluster secret} makes one.
 * Budget: 5 s (config reading only, no node starts).
 */
@Budget(seconds = 5)
class ClusterBeyondLoopbackNeedsSecretTest {
    @TempDir
    Path tmp;

    private static JsonObject cluster(String host, String... members) {
        return new JsonObject().put("enabled", true).put("name", "site").put("host", host).put("members", new JsonArray(List.of(members)));
    }

    private ArgusConfig read(JsonObject cluster, Map<String, String> env) throws Exception {
        return TestConfig.read(tmp, j -> j.put("cluster", cluster).put("cacheDir", tmp.resolve("cache").toString()), env);
    }

    @Test
    void aNodeClusteredBeyondLoopbackWithoutASecretIsRefusedNamingTheKeyAndTheCommand() throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> read(cluster("10.0.0.5", "10.0.0.5:5701", "10.0.0.6:5701"), Map.of()));
        System.out.println("security: clustered beyond loopback without a secret: " + e.getMessage());
        assertEquals("cluster.secret", e.key());
        assertTrue(e.getMessage().contains("required when the cluster reaches beyond loopback"), e.getMessage());
        assertTrue(e.getMessage().contains("host 10.0.0.5") && e.getMessage().contains("member 10.0.0.6:5701"), e.getMessage());
        assertTrue(e.getMessage().contains("argus cluster secret") && e.getMessage().contains("cluster.secretFile")
                && e.getMessage().contains("ARGUS_CLUSTER_SECRET"), e.getMessage());
        // loopback host, but one member elsewhere, or a public host elsewhere: still beyond loopback
        assertThrows(ConfigException.class, () -> read(cluster("127.0.0.1", "127.0.0.1:5701", "node2:5701"), Map.of()));
        assertThrows(ConfigException.class, () -> read(cluster("127.0.0.1", "127.0.0.1:5701").put("publicHost", "203.0.113.9"), Map.of()));
        assertThrows(ConfigException.class, () -> read(cluster("0.0.0.0", "127.0.0.1:5701"), Map.of()));
    }

    @Test
    void theSecretComesFromTheConfigTheEnvironmentOrAnOwnerOnlyFileAndIsNeverPrinted() throws Exception {
        ArgusConfig configured = read(cluster("10.0.0.5", "10.0.0.5:5701").put("secret", TestCluster.SECRET), Map.of());
        ArgusConfig fromEnv = read(cluster("10.0.0.5", "10.0.0.5:5701"), Map.of("ARGUS_CLUSTER_SECRET", TestCluster.SECRET));
        Path file = tmp.resolve("cluster-secret");
        Files.writeString(file, TestCluster.SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ArgusConfig fromFile = read(cluster("10.0.0.5", "10.0.0.5:5701").put("secretFile", file.toString()), Map.of());
        String name = new ClusterKeys(configured.cluster().secret()).hazelcastName("site");
        assertEquals(name, new ClusterKeys(fromEnv.cluster().secret()).hazelcastName("site"));
        assertEquals(name, new ClusterKeys(fromFile.cluster().secret()).hazelcastName("site"));
        for (ArgusConfig c : List.of(configured, fromEnv, fromFile)) {
            assertFalse(c.toString().contains(TestCluster.SECRET), "the config's text holds the secret: " + c.cluster());
        }

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        ConfigException readable = assertThrows(ConfigException.class,
                () -> read(cluster("10.0.0.5", "10.0.0.5:5701").put("secretFile", file.toString()), Map.of()));
        assertEquals("cluster.secretFile", readable.key());
        assertTrue(readable.getMessage().contains("may be read or written by other users (mode rw-r--r--)"), readable.getMessage());

        ConfigException shortOne = assertThrows(ConfigException.class,
                () -> read(cluster("10.0.0.5", "10.0.0.5:5701").put("secret", "too-short"), Map.of()));
        assertEquals("cluster.secret", shortOne.key());
        assertTrue(shortOne.getMessage().contains("at least 32 characters, found 9"), shortOne.getMessage());
        assertFalse(shortOne.getMessage().contains("too-short"), "the value is not echoed: " + shortOne.getMessage());

        ConfigException both = assertThrows(ConfigException.class, () -> read(cluster("10.0.0.5", "10.0.0.5:5701")
                .put("secret", TestCluster.SECRET).put("secretFile", file.toString()), Map.of()));
        assertTrue(both.getMessage().contains("not both"), both.getMessage());
    }

    @Test
    void onLoopbackANodeGeneratesTheSecretOnceOwnerOnlyAndLogsWhereNotWhat() throws Exception {
        ClusterConfig c = read(cluster("127.0.0.1", "127.0.0.1:5701", "localhost:5702"), Map.of()).cluster();
        assertNull(c.secret(), "none configured");
        StringBuilder log = new StringBuilder();
        Handler h = new Handler() {
            @Override public void publish(LogRecord r) {
                log.append(r.getParameters() == null ? r.getMessage() : java.text.MessageFormat.format(r.getMessage(), r.getParameters())).append('\n');
            }

            @Override public void flush() {}

            @Override public void close() {}
        };
        // at INFO whatever an earlier test of this JVM set (a strong reference: JUL holds loggers weakly)
        Logger logger = Logger.getLogger("argus.cluster");
        java.util.logging.Level level = logger.getLevel();
        logger.setLevel(java.util.logging.Level.INFO);
        logger.addHandler(h);
        try {
            ClusterSecret first = SecretSetting.resolve(c, tmp.resolve("cache"));
            ClusterSecret again = SecretSetting.resolve(c, tmp.resolve("cache"));
            Path file = tmp.resolve("cache/cluster-secret");
            String secret = Files.readString(file).strip();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertTrue(secret.length() >= ClusterSecret.MIN_LENGTH, "length " + secret.length());
            assertEquals(new ClusterKeys(first).hazelcastName("site"), new ClusterKeys(again).hazelcastName("site"), "kept across starts");
            assertTrue(log.toString().contains("generated the cluster secret in " + file), log.toString());
            assertTrue(log.toString().contains("every node of the cluster needs the same one"), log.toString());
            assertFalse(log.toString().contains(secret), "the secret was logged");
        } finally {
            logger.removeHandler(h);
            logger.setLevel(level);
        }
    }

    @Test
    void argusClusterSecretPrintsOrWritesANewOwnerOnlySecret() throws Exception {
        ArgusRun.Result printed = ArgusRun.argus("cluster", "secret");
        assertEquals(0, printed.code(), printed.err());
        String secret = printed.out().strip();
        assertTrue(secret.matches("[A-Za-z0-9_-]{43}"), "43 characters of URL-safe base64: " + secret);
        assertNotEquals(secret, ArgusRun.argus("cluster", "secret").out().strip(), "a new one each time");

        Path out = tmp.resolve("made/cluster-secret");
        ArgusRun.Result written = ArgusRun.argus("cluster", "secret", "--out", out.toString());
        assertEquals(0, written.code(), written.err());
        assertFalse(written.out().contains(Files.readString(out).strip()), "the written secret is not printed: " + written.out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
        ArgusConfig fromFile = read(cluster("10.0.0.5", "10.0.0.5:5701").put("secretFile", out.toString()), Map.of());
        assertEquals(out.toString(), fromFile.cluster().secret().source(), "the file it wrote is accepted as cluster.secretFile");

        ArgusRun.Result again = ArgusRun.argus("cluster", "secret", "--out", out.toString());
        assertEquals(2, again.code());
        assertTrue(again.err().contains("exists: not replaced"), again.err());
    }
}
