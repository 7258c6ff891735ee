package io.argus.pipeline.config;

import io.argus.pipeline.config.ArgusConfig.Reconnect;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The {@code mqtt:} section: where events and counts are published (docs/tracking.md). Absent or
 * {@code enabled: false}: no MQTT at all.
 *
 * <pre>
 * mqtt:
 *   enabled: true
 *   host: broker.lan
 *   port: 8883                  # default 1883, 8883 with tls
 *   clientId: argus-door-node   # default "argus-" + this machine's host name; unique per node
 *   username: argus
 *   passwordFile: mqtt.secret   # or password: ...; the file's first line
 *   tls: true
 *   caFile: broker-ca.pem       # PEM certificates trusted for the broker; absent: the JVM's trust store
 *   verifyHostname: true        # the broker's certificate must name host
 *   topicPrefix: argus
 *   qos: 1                      # 1: at least once (PUBACK); 0: at most once
 *   outbox: 10000               # messages kept while the broker is away; the oldest go first
 *   maxInflight: 100            # published and not yet acknowledged at a time
 *   keepAliveSeconds: 30
 *   connectTimeoutMs: 10000
 *   stopFlushMs: 3000           # on shutdown, how long the outbox may take to empty before "offline"
 *   reconnect: {initialMs: 1000, maxMs: 30000, multiplier: 2, jitter: 0.2}
 * </pre>
 *
 * @param password     the password written in the file, or null; {@code passwordFile} is read when the client
 *                     starts, off the event loop's hands (see {@link MqttOutputVerticle})
 * @param passwordFile a file whose first line is the password, or null
 * @param caFile       PEM certificates trusted for the broker's, or null for the JVM's trust store
 */
public record MqttSettings(boolean enabled, String host, int port, String clientId, String username,
                           String password, Path passwordFile, boolean tls, Path caFile, boolean verifyHostname,
                           String topicPrefix, int qos, int outbox, int maxInflight, int keepAliveSeconds,
                           int connectTimeoutMs, int stopFlushMs, Reconnect reconnect) {

    /** No MQTT: the default when the section is absent. */
    public static final MqttSettings OFF = new MqttSettings(false, "localhost", 1883, "argus", null, null, null,
            false, null, true, "argus", 1, 10_000, 100, 30, 10_000, 3000, new Reconnect(1000, 30_000, 2.0, 0.2));

    /**
     * The start-up warning for an {@code mqtt:} section that says where to publish ({@code host} or {@code port}, in
     * the file or the environment) but not {@code enabled: true}: the output is off, and nothing else would say so.
     * Null when there is nothing to warn of.
     */
    static String offThoughConfigured(io.vertx.core.json.JsonObject section, Map<String, String> env, MqttSettings read) {
        if (read.enabled()) return null;
        List<String> set = new java.util.ArrayList<>();
        for (String k : List.of("host", "port")) {
            if (section.containsKey(k)) set.add("mqtt." + k);
            else if (env.containsKey(ConfigNode.envName("mqtt." + k))) set.add(ConfigNode.envName("mqtt." + k));
        }
        if (set.isEmpty()) return null;
        boolean explicitlyOff = section.containsKey("enabled") || env.containsKey(ConfigNode.envName("mqtt.enabled"));
        return "mqtt.enabled: " + (explicitlyOff ? "false" : "not set (default false)") + ", though " + String.join(" and ", set)
                + " " + (set.size() > 1 ? "are" : "is") + " set: the MQTT output is off, no event is published"
                + " (set mqtt.enabled: true to publish)";
    }

    public static MqttSettings read(ConfigNode n) {
        boolean enabled = n.bool("enabled", false);
        String host = n.string("host", "localhost");
        if (enabled && host.isBlank()) throw new ConfigException(n.key("host"), "missing (required with enabled: true)");
        boolean tls = n.bool("tls", false);
        int port = n.integer("port", tls ? 8883 : 1883, 1, 65535);
        String clientId = n.string("clientId", null);
        if (clientId == null) clientId = enabled ? "argus-" + hostName() : "argus";   // no name lookup for nothing
        checkClientId(n.key("clientId"), clientId);
        String username = blankToNull(n.string("username", null));
        String password = n.string("password", null);
        Path passwordFile = n.path("passwordFile", null, true);
        if (password != null && passwordFile != null) {
            throw new ConfigException(n.key("passwordFile"), "give password or passwordFile, not both");
        }
        if ((password != null || passwordFile != null) && username == null) {
            // MQTT 3.1.1 sends a password only with a user name (section 3.1.2.9)
            throw new ConfigException(n.key("username"), "missing (a password needs a user name)");
        }
        Path caFile = n.path("caFile", null, true);
        if (caFile != null && !tls) throw new ConfigException(n.key("caFile"), "set tls: true to use a CA file");
        boolean verifyHostname = n.bool("verifyHostname", true);
        String prefix = n.string("topicPrefix", "argus");
        checkTopicPrefix(n.key("topicPrefix"), prefix);
        int qos = n.integer("qos", 1, 0, 1);
        int outbox = n.integer("outbox", 10_000, 1, 10_000_000);
        int maxInflight = n.integer("maxInflight", 100, 1, 10_000);
        int keepAlive = n.integer("keepAliveSeconds", 30, 0, 65535);
        int connectTimeout = n.integer("connectTimeoutMs", 10_000, 100, 600_000);
        int stopFlush = n.integer("stopFlushMs", 3000, 0, 600_000);
        // the same keys and ranges as camera.reconnect, with a broker's defaults (1 s, doubling, up to 30 s)
        Reconnect reconnect = Reconnect.read(n.child("reconnect"), 1000, 30_000);
        n.finish();
        return new MqttSettings(enabled, host.strip(), port, clientId, username, password, passwordFile, tls, caFile,
                verifyHostname, prefix, qos, outbox, maxInflight, keepAlive, connectTimeout, stopFlush, reconnect);
    }

    /** The topic of one camera's events: {@code <prefix>/<camera>/events}. */
    public String eventsTopic(String camera) { return topicPrefix + "/" + segment(camera) + "/events"; }

    /** The retained count of one class in a zone or on a line: {@code <prefix>/<camera>/<zone-or-line>/<class>/count}. */
    public String countTopic(String camera, String zoneOrLine, String className) {
        return topicPrefix + "/" + segment(camera) + "/" + segment(zoneOrLine) + "/" + segment(className) + "/count";
    }

    /** Where this node says whether it is connected: "online" (retained), "offline" (retained, also the last will). */
    public String availabilityTopic() { return topicPrefix + "/available"; }

    /**
     * A name made fit for one level of a topic: '/' would split it, '+' and '#' are wildcards a publisher may not use,
     * NUL is forbidden; each becomes '_'. Camera and zone ids are already plain ([A-Za-z0-9_-]); class names come
     * from model files and may hold anything (spaces are fine in topics and stay).
     */
    static String segment(String name) {
        if (name == null || name.isEmpty()) return "_";
        StringBuilder sb = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            sb.append(c == '/' || c == '+' || c == '#' || c == '\u0000' ? '_' : c);
        }
        return sb.toString();
    }

    /** The password never appears in logs or error messages that print the settings. */
    @Override
    public String toString() {
        return "MqttSettings[enabled=" + enabled + ", host=" + host + ", port=" + port + ", clientId=" + clientId
                + ", username=" + username + ", password=" + (password != null || passwordFile != null ? "(set)" : "none")
                + ", tls=" + tls + ", caFile=" + caFile + ", verifyHostname=" + verifyHostname + ", topicPrefix="
                + topicPrefix + ", qos=" + qos + ", outbox=" + outbox + ", maxInflight=" + maxInflight
                + ", keepAliveSeconds=" + keepAliveSeconds + ", connectTimeoutMs=" + connectTimeoutMs + ", stopFlushMs="
                + stopFlushMs + ", reconnect=" + reconnect + "]";
    }

    private static void checkTopicPrefix(String key, String prefix) {
        if (prefix.isEmpty()) throw new ConfigException(key, "must not be empty");
        if (prefix.contains("+") || prefix.contains("#")) {
            throw new ConfigException(key, "must not contain the wildcards + or #, found \"" + prefix + "\"");
        }
        if (prefix.startsWith("$")) throw new ConfigException(key, "topics starting with $ belong to the broker, found \"" + prefix + "\"");
        if (prefix.startsWith("/") || prefix.endsWith("/") || prefix.contains("//")) {
            throw new ConfigException(key, "expected levels separated by single '/' (like site/argus), found \"" + prefix + "\"");
        }
        if (prefix.indexOf('\u0000') >= 0) throw new ConfigException(key, "must not contain NUL");
    }

    private static void checkClientId(String key, String clientId) {
        if (clientId.isBlank()) throw new ConfigException(key, "must not be empty");
        if (clientId.getBytes(StandardCharsets.UTF_8).length > 65535) throw new ConfigException(key, "longer than 65535 bytes");
        if (clientId.indexOf('\u0000') >= 0) throw new ConfigException(key, "must not contain NUL");
    }

    /** This machine's name, so two nodes do not share a client id (the broker would drop one for the other). */
    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "node";
        }
    }

    private static String blankToNull(String s) { return s == null || s.isBlank() ? null : s; }
}
