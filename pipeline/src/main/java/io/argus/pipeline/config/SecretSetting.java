package io.argus.pipeline.config;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a node's {@link ClusterSecret} comes from, in order:
 * <ol>
 * <li>{@code cluster.secret} (or {@code ARGUS_CLUSTER_SECRET}), at least {@value ClusterSecret#MIN_LENGTH}
 *     characters;</li>
 * <li>{@code cluster.secretFile}, a file readable by its owner only ({@link SecretFile});</li>
 * <li>none: allowed only when the node's {@code host}, its {@code publicHost} and every member are loopback addresses
 *     (a cluster of processes on one machine), where the node generates one at its first start into
 *     {@code <cacheDir>/cluster-secret} (mode 0600) and says where, never what; nodes sharing the cache directory share
 *     it. Beyond loopback a node without a secret refuses to start, and says how to make one.</li>
 * </ol>
 */
public final class SecretSetting {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    private SecretSetting() {}

    /** The configured secret, or null on loopback without one; refuses a cluster beyond loopback without one. */
    static ClusterSecret read(ConfigNode n, boolean enabled, String host, String publicHost, List<String> members) {
        String text = n.string("secret", null);
        Path file = n.path("secretFile", null, false);
        if (text != null && text.isBlank()) text = null;
        if (text != null && file != null) {
            throw new ConfigException(n.key("secretFile"), "set either " + n.key("secret") + " or " + n.key("secretFile")
                    + ", not both (found both)");
        }
        if (text != null) {
            if (text.strip().length() < ClusterSecret.MIN_LENGTH) {
                // the length, never the value: a config error may end up in a log
                throw new ConfigException(n.key("secret"), "expected at least " + ClusterSecret.MIN_LENGTH + " characters, found "
                        + text.strip().length() + " (make one with `argus cluster secret`)");
            }
            return new ClusterSecret(text, n.key("secret"));
        }
        if (file != null) {
            try {
                return SecretFile.read(file).orElseThrow(() -> new ConfigException(n.key("secretFile"), "no such file " + file
                        + " (make one with `argus cluster secret --out " + file + "`)"));
            } catch (IOException e) {
                throw new ConfigException(n.key("secretFile"), e.getMessage());
            }
        }
        List<String> beyond = beyondLoopback(host, publicHost, members);
        if (enabled && !beyond.isEmpty()) {
            throw new ConfigException(n.key("secret"), "required when the cluster reaches beyond loopback ("
                    + String.join(", ", beyond) + "): without it anyone who reaches the Hazelcast port joins the cluster. "
                    + "Make one with `argus cluster secret --out /etc/argus/cluster-secret`, copy that file to every node "
                    + "(mode 0600) and set " + n.key("secretFile") + " to it (or put the secret in " + n.key("secret")
                    + " or " + ConfigNode.envName(n.key("secret")) + "); every node needs the same one");
        }
        return null;
    }

    /** The addresses of the cluster's section that are not loopback, described for the refusal. */
    static List<String> beyondLoopback(String host, String publicHost, List<String> members) {
        List<String> out = new ArrayList<>();
        if (!LoopbackHost.is(host)) out.add("host " + host);
        if (publicHost != null && !LoopbackHost.is(publicHost)) out.add("publicHost " + publicHost);
        for (String m : members) if (!LoopbackHost.is(hostOf(m))) out.add("member " + m);
        return out;
    }

    /** The host of a member's {@code host:port}, {@code host} or {@code [v6]:port}. */
    static String hostOf(String member) {
        if (member.startsWith("[")) return member.substring(0, member.indexOf(']') + 1);
        int colon = member.lastIndexOf(':');
        return colon < 0 ? member : member.substring(0, colon);
    }

    /**
     * The secret this node uses: the configured one, else (loopback only: {@link #read} refused the rest) the one
     * generated into the cache directory. Blocking file I/O: never on an event loop.
     */
    public static ClusterSecret resolve(ClusterConfig c, Path cacheDir) throws IOException {
        if (c.secret() != null) return c.secret();
        Path file = SecretFile.in(cacheDir);
        SecretFile.Created created;
        try {
            created = SecretFile.readOrCreate(file);
        } catch (IOException e) {
            throw new IOException("cluster: no cluster.secret is set, and the one generated for a cluster on loopback cannot be kept in "
                    + file + " (" + e.getMessage() + "); make cacheDir writable, or set cluster.secretFile", e);
        }
        LOG.log(Level.INFO, "cluster: {0} the cluster secret in {1} (no cluster.secret is set and the cluster is on loopback):"
                + " every node of the cluster needs the same one (the same cacheDir, or cluster.secretFile naming that file)",
                created.isNew() ? "generated" : "using", file);
        return created.secret();
    }
}
