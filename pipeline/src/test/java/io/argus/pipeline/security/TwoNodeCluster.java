package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.pipeline.cluster.ClusterKeys;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Two Argus nodes clustered on loopback in this JVM, with the cluster secret, a token on their HTTP, two looped file
 * cameras and one RTSP camera whose address holds credentials (nothing listens there: it is in the camera list, which
 * is what a stranger would want to read); and the {@link RogueMember} process beside them, which holds no secret.
 */
final class TwoNodeCluster implements AutoCloseable {
    /** The HTTP token of both nodes: it must never reach the rogue. */
    static final String TOKEN = "test-http-token-that-must-never-leave-its-node";
    /** The credentials in the RTSP camera's address: they must never reach the rogue. */
    static final String CREDENTIALS = "admin:password";
    static final List<String> CAMERAS = List.of("cam1", "cam2", "camr");

    final String name;
    final int portA;
    final int portB;
    final RunningApp a;
    final RunningApp b;
    final RogueProcess rogue;

    private TwoNodeCluster(String name, int portA, int portB, RunningApp a, RunningApp b, RogueProcess rogue) {
        this.name = name;
        this.portA = portA;
        this.portB = portB;
        this.a = a;
        this.b = b;
        this.rogue = rogue;
    }

    static TwoNodeCluster start() throws Exception {
        Path dir = TestMedia.dir().resolve("cluster-security");
        RogueProcess rogue = RogueProcess.start(dir.resolve("rogue.log")); // its JVM starts while the nodes do
        int portA = TestMedia.freePort();
        int portB = TestMedia.freePort();
        String name = "argus-sec-" + portA;
        List<String> members = List.of("127.0.0.1:" + portA, "127.0.0.1:" + portB);
        Path video = TestMedia.h264(160, 120, 4, 10);
        int nobody = TestMedia.freePort();
        CompletableFuture<RunningApp> a = CompletableFuture.supplyAsync(() -> node(name, portA, members, video, nobody));
        CompletableFuture<RunningApp> b = CompletableFuture.supplyAsync(() -> node(name, portB, members, video, nobody));
        TwoNodeCluster c = new TwoNodeCluster(name, portA, portB, a.join(), b.join(), rogue);
        Waits.waitFor(() -> c.owners(c.a).size() == CAMERAS.size() && c.owners(c.a).equals(c.owners(c.b)), 60_000,
                "every camera owned, the same on both nodes");
        return c;
    }

    private static RunningApp node(String name, int port, List<String> members, Path video, int nobody) {
        try {
            JsonObject json = TestConfig.light();
            json.getJsonObject("http").put("token", TOKEN);
            JsonArray cameras = json.getJsonArray("cameras");
            cameras.add(TestConfig.camera("cam1", video.toString()).put("loop", true).put("realtime", true));
            cameras.add(TestConfig.camera("cam2", video.toString()).put("loop", true).put("realtime", true));
            cameras.add(TestConfig.camera("camr", "rtsp://" + CREDENTIALS + "@127.0.0.1:" + nobody + "/stream"));
            json.put("cluster", TestCluster.section(name, port, members).put("minSize", 1).put("renewIntervalMs", 300)
                    .put("leaseMs", 10_000));
            return new RunningApp(TestConfig.read(json));
        } catch (Exception e) {
            throw new IllegalStateException("node on Hazelcast port " + port + " did not start: " + e, e);
        }
    }

    /** The Hazelcast cluster name the nodes joined: derived from the secret. A sniffer of the cluster network reads it. */
    String derivedName() { return new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "test")).hazelcastName(name); }

    List<String> members() { return List.of("127.0.0.1:" + portA, "127.0.0.1:" + portB); }

    /** Camera to "owner@epoch", as {@code node} lists them (cameras with no owner left out). */
    Map<String, String> owners(RunningApp node) throws Exception {
        Map<String, String> out = new TreeMap<>();
        RunningApp.Response r = node.get("/api/cameras");
        assertEquals(200, r.status(), r.body());
        for (Object o : r.array()) {
            JsonObject cam = (JsonObject) o;
            if (cam.getString("owner") != null) out.put(cam.getString("id"), cam.getString("owner") + "@" + cam.getLong("epoch"));
        }
        return out;
    }

    /** The node running {@code camera}. */
    RunningApp ownerOf(String camera) throws Exception {
        String owner = owners(a).get(camera).split("@")[0];
        return owner.equals(a.app.nodeId()) ? a : b;
    }

    RunningApp other(RunningApp node) { return node == a ? b : a; }

    /** Frames decoded so far by {@code camera} on its owner. */
    long framesDecoded(String camera) throws Exception {
        return ownerOf(camera).camera(camera).getLong("framesDecoded", 0L);
    }

    /** The value of {@code argus_cluster_invalid_values_total{map=...}} on {@code node}. */
    static double invalidValues(RunningApp node, String map) throws Exception {
        String metrics = node.get("/metrics").body();
        var m = java.util.regex.Pattern.compile("(?m)^argus_cluster_invalid_values_total\\{[^}]*map=\"" + java.util.regex.Pattern.quote(map)
                + "\"[^}]*} ([0-9.eE+-]+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Override
    public void close() throws Exception {
        try (RogueProcess r = rogue; RunningApp x = a; RunningApp y = b) {
            // closed in reverse order: the nodes, then the rogue
        }
    }
}
