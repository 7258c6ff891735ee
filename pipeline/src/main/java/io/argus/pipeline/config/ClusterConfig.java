package io.argus.pipeline.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cluster:} section (docs/cluster.md). Absent or {@code enabled: false}: a single node, exactly as without
 * clustering. Enabled: Vert.x runs clustered over Hazelcast, nodes find each other by TCP/IP at {@code members}
 * (multicast is never used), and the cameras of the cluster-wide list are spread over the nodes by leases.
 *
 * @param name               Hazelcast cluster name: nodes with another name never join
 * @param host               the address this node binds and announces for Hazelcast and the event bus
 * @param port               Hazelcast's port (membership and the shared maps)
 * @param eventBusPort       the clustered event bus's port (detections between nodes); 0: any free port
 * @param members            {@code host:port} of the nodes to join (this node may be among them)
 * @param publicHost         the address other nodes reach this one at, when not {@code host} (NAT, containers)
 * @param heartbeatIntervalMs how often Hazelcast members tell each other they live (whole seconds: rounded up)
 * @param maxNoHeartbeatMs   a member silent this long is removed (whole seconds: rounded up)
 * @param minSize            a node that sees fewer members (itself included) runs no camera and is not ready
 * @param weight             this node's share of the cameras relative to the others' weights
 * @param leaseMs            a camera lease not renewed for this long may be taken by another node (longer than failure
 *                           detection, about twice: the slow path, for a node that lives but cannot renew)
 * @param renewIntervalMs    how often leases are renewed and free cameras claimed
 * @param tls                the operator's own PKI for the clustered event bus ({@code cluster.tls}); null: the TLS
 *                           identity derived from the secret ({@code cluster/DerivedIdentity})
 * @param secret             the secret the nodes share ({@code cluster.secret}, {@code cluster.secretFile});
 *                           null: none configured, allowed only on loopback, where the node generates one at start
 *                           ({@link SecretSetting#resolve})
 */
public record ClusterConfig(boolean enabled, String name, String host, int port, int eventBusPort, List<String> members,
                            String publicHost, int heartbeatIntervalMs, int maxNoHeartbeatMs, int minSize, double weight,
                            int leaseMs, int renewIntervalMs, ClusterTls tls, ClusterSecret secret) {

    /** No clustering: the default when the section is absent. */
    public static final ClusterConfig OFF = new ClusterConfig(false, "argus", "127.0.0.1", 5701, 0, List.of(), null,
            1000, 5000, 1, 1.0, 10_000, 500, null, null);

    public static ClusterConfig read(ConfigNode n) {
        boolean enabled = n.bool("enabled", false);
        String name = n.string("name", "argus");
        if (name.isBlank()) throw new ConfigException(n.key("name"), "must not be empty");
        String host = n.string("host", "127.0.0.1");
        int port = n.integer("port", 5701, 1, 65535);
        int eventBusPort = n.integer("eventBusPort", 0, 0, 65535);
        List<String> members = members(n);
        String publicHost = n.string("publicHost", null);
        int heartbeat = n.integer("heartbeatIntervalMs", 1000, 100, 60_000);
        int maxNoHeartbeat = n.integer("maxNoHeartbeatMs", 5000, 1000, 600_000);
        if (maxNoHeartbeat <= heartbeat) {
            throw new ConfigException(n.key("maxNoHeartbeatMs"), "must exceed heartbeatIntervalMs (" + heartbeat + "), found " + maxNoHeartbeat);
        }
        int minSize = n.integer("minSize", 1, 1, 1000);
        double weight = n.number("weight", 1.0, 0.01, 1000);
        int renew = n.integer("renewIntervalMs", 500, 50, 60_000);
        int lease = n.integer("leaseMs", 10_000, 200, 600_000);
        if (lease < 3 * renew) {
            throw new ConfigException(n.key("leaseMs"), "must be at least 3 x renewIntervalMs (" + 3 * renew + ") so one late renewal loses nothing, found " + lease);
        }
        // While a dead member is not yet removed, map calls on its partitions wait: a shorter lease would make every
        // node stop the cameras whose leases lived there.
        long detection = seconds(maxNoHeartbeat) * 1000;
        if (lease <= detection) {
            throw new ConfigException(n.key("leaseMs"), "must exceed maxNoHeartbeatMs (" + detection + " in whole seconds), found " + lease);
        }
        if (enabled && members.isEmpty()) {
            throw new ConfigException(n.key("members"), "a clustered node needs the members to join (host:port, this node may be one of them)");
        }
        ClusterTls tls = ClusterTls.read(n.child("tls"));
        String announced = publicHost == null || publicHost.isBlank() ? null : publicHost;
        ClusterSecret secret = SecretSetting.read(n, enabled, host, announced, members);
        n.finish();
        return new ClusterConfig(enabled, name, host, port, eventBusPort, members, announced, heartbeat, maxNoHeartbeat,
                minSize, weight, lease, renew, tls, secret);
    }

    private static final java.util.regex.Pattern HOST_PORT =
            java.util.regex.Pattern.compile("([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\])(:([0-9]{1,5}))?");

    /** The members to join: "host:port" or "host" (port 5701), checked. */
    private static List<String> members(ConfigNode n) {
        List<String> out = new ArrayList<>();
        List<String> items = n.strings("members");
        for (int i = 0; i < items.size(); i++) {
            var m = HOST_PORT.matcher(items.get(i));
            String key = n.key("members") + "[" + i + "]";
            if (!m.matches()) throw new ConfigException(key, "expected host:port, found \"" + items.get(i) + "\"");
            if (m.group(3) != null) {
                int p = Integer.parseInt(m.group(3));
                if (p < 1 || p > 65535) throw new ConfigException(key, "port out of range 1..65535, found " + p);
            }
            out.add(items.get(i));
        }
        return List.copyOf(out);
    }

    /** The same section with {@code secret} (generated at start on loopback). */
    public ClusterConfig withSecret(ClusterSecret s) {
        return new ClusterConfig(enabled, name, host, port, eventBusPort, members, publicHost, heartbeatIntervalMs,
                maxNoHeartbeatMs, minSize, weight, leaseMs, renewIntervalMs, tls, s);
    }

    /** A time as Hazelcast counts it, in whole seconds: {@code ms} rounded up, at least 1. */
    public static long seconds(long ms) {
        return Math.max(1, (ms + 999) / 1000);
    }

    /** Where other nodes reach this one. */
    public String announcedHost() { return publicHost != null ? publicHost : host; }
}
