package io.argus.pipeline.cluster;

import com.hazelcast.config.AdvancedNetworkConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import io.argus.pipeline.config.ClusterConfig;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;

/**
 * The Hazelcast configuration of a node: Vert.x's own (its subscription and node maps) plus the {@code cluster:}
 * section. Members are found only over TCP/IP at the configured addresses: multicast and cloud auto-detection would
 * let a node join whatever cluster shares its network.
 *
 * <p>A member that does not hold the cluster secret may still join if it learnt the derived name (Hazelcast's traffic
 * is cleartext): what it finds there is sealed ({@link SealedMap}), and the event bus refuses it ({@link
 * DerivedIdentity}).
 */
public final class HazelcastSettings {
    private HazelcastSettings() {}

    /** Backups of the Argus maps (camera list, leases, nodes): two nodes may die at once and the epochs survive. */
    static final int BACKUPS = 2;

    /**
     * The node's Hazelcast config. Its cluster name is derived from the secret ({@link ClusterKeys#hazelcastName}):
     * Hazelcast refuses a member whose name differs, and open-source Hazelcast has no other way to keep one out.
     */
    public static Config of(ClusterConfig c, ClusterKeys keys) {
        Config config = ConfigUtil.loadConfig();
        config.setClusterName(keys.hazelcastName(c.name()));
        // A member endpoint of its own (Hazelcast's advanced network) rather than the unified one: on the unified
        // endpoint a new connection to a member that hangs (SIGSTOP, a frozen VM) waits for that member's protocol
        // with its first packets queued, and Hazelcast 5.3's outbound pipeline then re-runs itself on its IO thread
        // without end (the encoder says clean, the queue is not empty); that thread never selects again, so the other
        // connections it serves stop sending once their socket buffers fill: heartbeats included, and the survivors
        // of a frozen member split. The member endpoint's encoder waits blocked instead (docs/cluster.md, "A frozen
        // node").
        AdvancedNetworkConfig net = config.getAdvancedNetworkConfig().setEnabled(true);
        ServerSocketEndpointConfig members = new ServerSocketEndpointConfig();
        members.setPort(c.port()).setPortAutoIncrement(false);
        if (c.publicHost() != null) members.setPublicAddress(c.publicHost() + ":" + c.port());
        net.setMemberEndpointConfig(members);
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(c.members());
        config.setProperty("hazelcast.local.localAddress", c.host());
        config.setProperty("hazelcast.socket.bind.any", "false");
        // Failure detection: Hazelcast's default is 60 s without a heartbeat; it counts in whole seconds.
        config.setProperty("hazelcast.heartbeat.interval.seconds", Long.toString(ClusterConfig.seconds(c.heartbeatIntervalMs())));
        config.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(ClusterConfig.seconds(c.maxNoHeartbeatMs())));
        // A write waits for its backups' acknowledgements; a member that hangs (not yet removed) would hold every
        // lease renewal with a backup there for Hazelcast's default 5 s, and the owners would fence their cameras.
        config.setProperty("hazelcast.operation.backup.timeout.millis", Long.toString(c.heartbeatIntervalMs()));
        // After a network split heals, merge the halves within seconds rather than Hazelcast's 5 minutes.
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "10");
        // Argus leaves the cluster itself on SIGTERM, after releasing its camera leases: Hazelcast's own shutdown
        // hook would leave first and the leases could only expire.
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        // Hazelcast prefixes every log line with the cluster name, which is derived from the secret: whoever reads a
        // node's log could then join (reading only ciphertext, but deleting entries). The member address stays in the
        // messages that concern a member.
        config.setProperty("hazelcast.logging.details.enabled", "false");
        config.addMapConfig(new MapConfig("argus.*").setBackupCount(BACKUPS));
        // Any member can send a value to be deserialized here: Java serialization is limited to the JDK's, Hazelcast's
        // and Vert.x's classes, less Hazelcast's list of known gadget classes (Argus itself stores only text).
        JavaSerializationFilterConfig filter = new JavaSerializationFilterConfig().setDefaultsDisabled(false);
        filter.getWhitelist().addPrefixes("java.", "javax.", "com.hazelcast.", "io.vertx.");
        config.getSerializationConfig().setJavaSerializationFilterConfig(filter);
        return config;
    }
}
