package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.instance.EndpointQualifier;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code cluster:} section: off by default, read with types and ranges, environment overrides, Hazelcast's config. */
@Budget(seconds = 15)
class ClusterConfigTest {
    @Test
    void absentSectionMeansASingleNode() throws Exception {
        ArgusConfig c = TestConfig.read(TestConfig.base());
        assertFalse(c.cluster().enabled());
    }

    @Test
    void keysAreReadWithDefaultsAndEnvironmentOverrides() throws Exception {
        JsonObject json = TestConfig.base().put("cluster", new JsonObject().put("enabled", true).put("name", "prod")
                .put("host", "10.0.0.5").put("port", 5801).put("members", new JsonArray().add("10.0.0.5:5801").add("10.0.0.6"))
                .put("weight", 2).put("secret", TestCluster.SECRET));
        ArgusConfig c = ArgusConfig.read(TestMedia.dir().resolve("x.yaml"), json, Map.of(
                "ARGUS_CLUSTER_MIN_SIZE", "2", "ARGUS_CLUSTER_PUBLIC_HOST", "203.0.113.9"));
        ClusterConfig k = c.cluster();
        assertTrue(k.enabled());
        assertEquals("prod", k.name());
        assertEquals(5801, k.port());
        assertEquals(List.of("10.0.0.5:5801", "10.0.0.6"), k.members());
        assertEquals(2, k.minSize());
        assertEquals(2.0, k.weight());
        assertEquals("203.0.113.9", k.announcedHost());
        assertEquals(1000, k.heartbeatIntervalMs());
        assertEquals(5000, k.maxNoHeartbeatMs());
        assertEquals(10_000, k.leaseMs());
        assertEquals(500, k.renewIntervalMs());
        assertEquals("cluster.secret", k.secret().source());
        assertFalse(k.toString().contains(TestCluster.SECRET), "the secret is never printed: " + k);
        assertTrue(c.unusedEnv().isEmpty(), c.unusedEnv().toString());

        ArgusConfig fromEnv = ArgusConfig.read(TestMedia.dir().resolve("x.yaml"), TestConfig.base(), Map.of(
                "ARGUS_CLUSTER_ENABLED", "true", "ARGUS_CLUSTER_MEMBERS", "a:5701, b:5702", "ARGUS_CLUSTER_SECRET", TestCluster.SECRET));
        assertEquals(List.of("a:5701", "b:5702"), fromEnv.cluster().members(), "a comma-separated member list from the environment");
        assertEquals(new ClusterKeys(k.secret()).hazelcastName("x"), new ClusterKeys(fromEnv.cluster().secret()).hazelcastName("x"),
                "the secret from the environment is the same secret");
    }

    @Test
    void badValuesNameTheKey() throws Exception {
        assertError(new JsonObject().put("enabled", true), "cluster.members", "needs the members");
        assertError(new JsonObject().put("members", new JsonArray().add("a:99999")), "cluster.members[0]", "port out of range");
        assertError(new JsonObject().put("members", new JsonArray().add("a b")), "cluster.members[0]", "expected host:port");
        assertError(new JsonObject().put("minSize", 0), "cluster.minSize", "expected an integer in 1..1000");
        assertError(new JsonObject().put("heartbeatIntervalMs", 5000).put("maxNoHeartbeatMs", 4000), "cluster.maxNoHeartbeatMs", "must exceed");
        assertError(new JsonObject().put("leaseMs", 1000).put("renewIntervalMs", 500), "cluster.leaseMs", "at least 3 x renewIntervalMs");
        assertError(new JsonObject().put("leaseMs", 4000).put("maxNoHeartbeatMs", 4500), "cluster.leaseMs", "must exceed maxNoHeartbeatMs (5000");
        assertError(new JsonObject().put("multicast", true), "cluster.multicast", "unknown key");
    }

    @Test
    void hazelcastJoinsOnlyTheListedMembersAndDetectsFailuresInSeconds() {
        ClusterSecret secret = new ClusterSecret(TestCluster.SECRET, "test");
        ClusterConfig c = new ClusterConfig(true, "prod", "127.0.0.1", 5801, 0, List.of("127.0.0.1:5801", "127.0.0.1:5802"),
                null, 1500, 4200, 2, 1, 8000, 500, null, secret);
        Config h = HazelcastSettings.of(c, new ClusterKeys(secret));
        assertTrue(h.getClusterName().matches("prod-[0-9a-f]{32}"), "the configured name and a part derived from the secret: "
                + h.getClusterName());
        assertEquals(h.getClusterName(), HazelcastSettings.of(c, new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "again"))).getClusterName(),
                "the same secret gives the same name on every node");
        assertFalse(h.getClusterName().equals(HazelcastSettings.of(c, new ClusterKeys(new ClusterSecret(TestCluster.SECRET + "x", "other")))
                .getClusterName()), "another secret, another name: its members never join");
        assertTrue(h.getAdvancedNetworkConfig().isEnabled(), "a member endpoint of its own");
        assertFalse(h.getAdvancedNetworkConfig().getJoin().getMulticastConfig().isEnabled());
        assertFalse(h.getAdvancedNetworkConfig().getJoin().getAutoDetectionConfig().isEnabled());
        assertTrue(h.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().isEnabled());
        assertEquals(List.of("127.0.0.1:5801", "127.0.0.1:5802"), h.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers());
        ServerSocketEndpointConfig member = (ServerSocketEndpointConfig) h.getAdvancedNetworkConfig().getEndpointConfigs()
                .get(EndpointQualifier.MEMBER);
        assertEquals(5801, member.getPort());
        assertNull(member.getPublicAddress());
        assertEquals("2", h.getProperty("hazelcast.heartbeat.interval.seconds"), "whole seconds, rounded up");
        assertEquals("5", h.getProperty("hazelcast.max.no.heartbeat.seconds"));
        assertEquals("false", h.getProperty("hazelcast.shutdownhook.enabled"), "Argus leaves after releasing its leases");
        assertTrue(h.getMultiMapConfigs().containsKey("__vertx.subs"), "Vert.x's own maps are configured");
    }

    @Test
    void tlsBetweenNodesTakesAKeyStoreAndATrustStoreAndRefusesBrokenOnes() throws Exception {
        java.nio.file.Path dir = TestMedia.dir().resolve("cluster-tls");
        java.nio.file.Path node = NodeCertificates.keyStore(dir, "node1", "secret1");
        java.nio.file.Path trust = NodeCertificates.trustStore(dir, "secret2", "secret1", node);

        JsonObject tls = new JsonObject().put("keyStore", node.toString()).put("keyStorePassword", "secret1")
                .put("trustStore", trust.toString()).put("trustStorePassword", "secret2");
        ClusterConfig c = TestConfig.read(TestConfig.base().put("cluster", new JsonObject().put("tls", tls))).cluster();
        assertEquals(node, c.tls().keyStore());
        assertEquals("PKCS12", c.tls().typeOf(node));
        assertFalse(c.tls().toString().contains("secret"), "passwords are not printed: " + c.tls());
        io.vertx.core.eventbus.EventBusOptions bus = new io.vertx.core.eventbus.EventBusOptions();
        ClusterEventBus.configure(bus, c, new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "test")));
        assertTrue(bus.isSsl());
        assertEquals(io.vertx.core.http.ClientAuth.REQUIRED, bus.getClientAuth(), "every node checks its peers");
        assertNull(TestConfig.read(TestConfig.base()).cluster().tls(), "no tls section: plain TCP");

        assertError(new JsonObject().put("tls", tls.copy().put("keyStorePassword", "wrong")), "cluster.tls.keyStore",
                "cannot open " + node);
        assertError(new JsonObject().put("tls", tls.copy().put("keyStore", trust.toString()).put("keyStorePassword", "secret2")),
                "cluster.tls.keyStore", "holds no private key");
        assertError(new JsonObject().put("tls", tls.copy().put("trustStore", dir.resolve("missing.p12").toString())),
                "cluster.tls.trustStore", "no such file");
        assertError(new JsonObject().put("tls", tls.copy().putNull("trustStore")), "cluster.tls.trustStore", "required with keyStore");
        assertError(new JsonObject().put("tls", new JsonObject().put("trustStore", trust.toString())), "cluster.tls.keyStore",
                "a trustStore without a keyStore");
    }

    private static void assertError(JsonObject cluster, String key, String reason) throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> TestConfig.read(TestConfig.base().put("cluster", cluster)));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
