package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code cluster:} section: off by default, read with types and ranges, environment overrides, Hazelcast's config. */
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
                .put("weight", 2));
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
        assertTrue(c.unusedEnv().isEmpty(), c.unusedEnv().toString());

        ArgusConfig fromEnv = ArgusConfig.read(TestMedia.dir().resolve("x.yaml"), TestConfig.base(), Map.of(
                "ARGUS_CLUSTER_ENABLED", "true", "ARGUS_CLUSTER_MEMBERS", "a:5701, b:5702"));
        assertEquals(List.of("a:5701", "b:5702"), fromEnv.cluster().members(), "a comma-separated member list from the environment");
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
        ClusterConfig c = new ClusterConfig(true, "prod", "127.0.0.1", 5801, 0, List.of("127.0.0.1:5801", "127.0.0.1:5802"),
                null, 1500, 4200, 2, 1, 8000, 500);
        Config h = HazelcastSettings.of(c);
        assertEquals("prod", h.getClusterName());
        assertFalse(h.getNetworkConfig().getJoin().getMulticastConfig().isEnabled());
        assertFalse(h.getNetworkConfig().getJoin().getAutoDetectionConfig().isEnabled());
        assertTrue(h.getNetworkConfig().getJoin().getTcpIpConfig().isEnabled());
        assertEquals(List.of("127.0.0.1:5801", "127.0.0.1:5802"), h.getNetworkConfig().getJoin().getTcpIpConfig().getMembers());
        assertEquals(5801, h.getNetworkConfig().getPort());
        assertNull(h.getNetworkConfig().getPublicAddress());
        assertEquals("2", h.getProperty("hazelcast.heartbeat.interval.seconds"), "whole seconds, rounded up");
        assertEquals("5", h.getProperty("hazelcast.max.no.heartbeat.seconds"));
        assertEquals("false", h.getProperty("hazelcast.shutdownhook.enabled"), "Argus leaves after releasing its leases");
        assertTrue(h.getMultiMapConfigs().containsKey("__vertx.subs"), "Vert.x's own maps are configured");
    }

    private static void assertError(JsonObject cluster, String key, String reason) throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> TestConfig.read(TestConfig.base().put("cluster", cluster)));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
