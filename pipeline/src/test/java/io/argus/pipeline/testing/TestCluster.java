package io.argus.pipeline.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The {@code cluster:} section of test nodes: every node of a test cluster shares {@link #SECRET} (a cluster on loopback
 * would generate one into its cache directory, but test nodes may each have their own).
 */
public final class TestCluster {
    private TestCluster() {}

    /** The test clusters' secret (never a real one: it is in the sources). */
    public static final String SECRET = "test-cluster-secret-of-at-least-32-characters";

    /** Enabled, {@code name}, this node's Hazelcast {@code port} on 127.0.0.1, the {@code members}, the secret. */
    public static JsonObject section(String name, int port, List<String> members) {
        return new JsonObject().put("enabled", true).put("name", name).put("host", "127.0.0.1").put("port", port)
                .put("members", new JsonArray(List.copyOf(members))).put("secret", SECRET);
    }
}
