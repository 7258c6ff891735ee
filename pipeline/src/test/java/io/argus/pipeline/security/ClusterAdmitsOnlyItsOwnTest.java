package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.Waits;
import io.argus.pipeline.testing.WsClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;

/**
 * A cluster admits only its own: two nodes holding the cluster secret (in this JVM, {@link TwoNodeCluster}) and a
 * rogue process without it ({@link RogueMember}), one nested class per attack, sharing the cluster (in this order: the
 * rogue first tries the configured name, then, as a sniffer of Hazelcast's cleartext traffic could, the derived one).
 * Budget: 120 s (the two nodes start in about 30 s on the loaded 2-core machine, the attacks take the rest).
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class ClusterAdmitsOnlyItsOwnTest {
    static TwoNodeCluster cluster;
    /** What the cluster code logged, to check that an invalid value is logged once. */
    static final List<String> logged = new CopyOnWriteArrayList<>();
    static final Handler capture = new Handler() {
        @Override public void publish(LogRecord r) {
            String m = r.getMessage();
            if (r.getParameters() != null) m = java.text.MessageFormat.format(m, r.getParameters());
            logged.add(m);
        }

        @Override public void flush() {}

        @Override public void close() {}
    };

    @BeforeAll
    static void start() throws Exception {
        Logger.getLogger("argus.cluster").addHandler(capture);
        cluster = TwoNodeCluster.start();
    }

    @AfterAll
    static void stop() throws Exception {
        Logger.getLogger("argus.cluster").removeHandler(capture);
        if (cluster != null) cluster.close();
    }

    static JsonObject op(String op) { return new JsonObject().put("op", op); }

    private static boolean joined;

    /** The rogue joins Hazelcast under the derived name, as a sniffer of the cluster network could (once). */
    static void joinWithDerivedName() throws Exception {
        if (joined) return;
        JsonObject answer = cluster.rogue.send(op("member").put("name", cluster.derivedName())
                .put("members", new JsonArray(cluster.members())).put("waitMs", 20_000), 60_000);
        assertTrue(answer.getBoolean("joined", false), "the rogue joins with the derived name: " + answer.encode());
        joined = true;
    }

    /**
     * Finding: anyone who reaches the Hazelcast port joins the cluster and reads the camera list, credentials
     * included. Now the cluster's Hazelcast name is derived from the secret: a member or client with the configured
     * name is refused.
     */
    @Nested
    @Order(1)
    class RogueMemberTest {
        @Test
        void aMemberOrClientWithTheConfiguredNameIsNotAdmitted() throws Exception {
            JsonObject member = cluster.rogue.send(op("member").put("name", cluster.name)
                    .put("members", new JsonArray(cluster.members())).put("waitMs", 3000), 60_000);
            System.out.println("security: rogue member with the configured name " + cluster.name + ": " + member.encode());
            assertFalse(member.getBoolean("joined", true), "a member without the secret joined: " + member.encode());

            JsonObject client = cluster.rogue.send(op("client").put("name", cluster.name)
                    .put("address", "127.0.0.1:" + cluster.portA).put("timeoutMs", 3000), 60_000);
            String shown = client.encode();
            System.out.println("security: rogue client with the configured name: "
                    + (shown.length() > 300 ? shown.substring(0, 300) + "..." : shown));
            assertFalse(client.getBoolean("connected", true), "a client without the secret connected: " + shown);
            assertFalse(shown.contains(TwoNodeCluster.CREDENTIALS), "camera credentials reached the rogue: " + shown);

            for (RunningApp node : List.of(cluster.a, cluster.b)) {
                assertEquals(2, node.get("/api/nodes").array().size(), "the nodes see only each other");
            }
        }
    }

    /**
     * Finding: a member that joined wrote a node entry and a lease; a snapshot request was then passed on to its
     * address with the API token, and the camera stopped on the real nodes. Now, with the derived name (sniffed), it
     * reads only ciphertext, and what it writes (forged entries, garbage, an older lease put back, a deletion) is
     * ignored or written over: no camera moves or stops, and its HTTP listener receives nothing.
     */
    @Nested
    @Order(2)
    class ForgedLeaseTest {
        @Test
        void aMemberWithoutTheSecretReadsNoCredentialAndMovesNoCamera() throws Exception {
            joinWithDerivedName();
            // everything it can read: every map of the cluster (those it is told of, and those Argus and Vert.x keep)
            java.util.Set<String> maps = new java.util.TreeSet<>(List.of("argus.cameras", "argus.leases", "argus.nodes",
                    "argus.camera-states", "argus.models", "argus.trainers", "argus.model-versions", "argus.scene-rules",
                    "argus.counts", "__vertx.nodeInfo"));
            for (Object o : cluster.rogue.send(op("maps"), 30_000).getJsonArray("maps")) {
                String[] serviceAndName = o.toString().split(" ", 2);
                if (serviceAndName[0].equals("hz:impl:mapService")) maps.add(serviceAndName[1]);
            }
            int values = 0;
            for (String map : maps) {
                JsonObject entries = cluster.rogue.send(op("entries").put("map", map), 30_000).getJsonObject("entries");
                for (String k : entries.fieldNames()) {
                    String v = entries.getString(k);
                    values++;
                    assertFalse(v.contains("rtsp://") || v.contains(TwoNodeCluster.CREDENTIALS) || v.contains(TwoNodeCluster.TOKEN),
                            "the rogue read a credential in " + map + " at " + k + ": " + v);
                    if (map.startsWith("argus.")) assertTrue(v.startsWith("argus1:"), "not sealed: " + map + " " + k + ": " + v);
                }
            }
            JsonObject cameras = cluster.rogue.send(op("entries").put("map", "argus.cameras"), 30_000).getJsonObject("entries");
            assertEquals(TwoNodeCluster.CAMERAS.size(), cameras.size(), "the rogue sees the camera list, sealed: " + cameras.fieldNames());
            System.out.println("security: the rogue read " + values + " values of " + maps.size() + " distributed objects: no credential, argus.* all sealed");

            Map<String, String> before = cluster.owners(cluster.a);
            Map<String, Long> frames = new java.util.TreeMap<>();
            for (String c : List.of("cam1", "cam2")) frames.put(c, cluster.framesDecoded(c));
            Vertx vertx = cluster.a.client;
            List<String> received = new CopyOnWriteArrayList<>();
            HttpServer fake = vertx.createHttpServer().requestHandler(r -> {
                received.add(r.method() + " " + r.uri() + " authorization=" + r.getHeader("authorization"));
                r.response().setStatusCode(200).putHeader("content-type", "image/jpeg").end("FAKE");
            }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                String cam = "cam1";
                RunningApp owner = cluster.ownerOf(cam);
                RunningApp other = cluster.other(owner);
                String ownerId = owner.app.nodeId();
                long now = System.currentTimeMillis();
                JsonObject rogueNode = new JsonObject().put("id", "rogue-node").put("cluster", "127.0.0.1:1")
                        .put("http", "127.0.0.1:" + fake.actualPort()).put("weight", 1000.0);
                cluster.rogue.send(op("put").put("map", "argus.nodes").put("key", "rogue-node").put("value", rogueNode.encode()), 30_000);
                // the rogue's lease of cam1, and one in the name of the other node with a higher epoch
                cluster.rogue.send(op("put").put("map", "argus.leases").put("key", cam).put("value", new JsonObject()
                        .put("owner", "rogue-node").put("epoch", 99).put("expires", now + 60_000).put("heir", "").put("handover", "").encode()), 30_000);
                // an older sealed lease of cam2 put back, after its owner renewed it
                String old = cluster.rogue.send(op("entries").put("map", "argus.leases"), 30_000).getJsonObject("entries").getString("cam2");
                Waits.waitFor(() -> !old.equals(cluster.rogue.send(op("entries").put("map", "argus.leases"), 30_000)
                        .getJsonObject("entries").getString("cam2")), 10_000, "cam2's lease renewed");
                cluster.rogue.send(op("put").put("map", "argus.leases").put("key", "cam2").put("value", old), 30_000);
                // camr's lease deleted
                cluster.rogue.send(op("remove").put("map", "argus.leases").put("key", "camr"), 30_000);
                // and it keeps writing its lease of cam1 over the owner's for 3 s, while snapshots are asked of the other node
                long end = System.currentTimeMillis() + 3000;
                int snapshots = 0;
                while (System.currentTimeMillis() < end) {
                    cluster.rogue.send(op("put").put("map", "argus.leases").put("key", cam).put("value", new JsonObject()
                            .put("owner", other.app.nodeId()).put("epoch", 100).put("expires", now + 60_000).put("heir", "").put("handover", "").encode()), 30_000);
                    other.get("/api/cameras/" + cam + "/snapshot.jpg");
                    snapshots++;
                    Thread.sleep(200);
                }
                Thread.sleep(1500); // a few more lease rounds (300 ms) after the last write
                Map<String, String> after = cluster.owners(cluster.a);
                System.out.println("security: forged leases, a replayed lease, a deleted lease, a forged node entry; owners before "
                        + before + ", after " + after + "; the fake listener received " + received + " (" + snapshots + " snapshot requests)");
                assertEquals(before, after, "no camera moved (owner@epoch), as node A lists them");
                assertEquals(before, cluster.owners(cluster.b), "no camera moved, as node B lists them");
                assertEquals(ownerId, cluster.ownerOf(cam).app.nodeId());
                assertEquals(List.of(), received, "the rogue's declared HTTP address received requests");
                for (String c : frames.keySet()) {
                    long f = frames.get(c);
                    Waits.waitFor(() -> cluster.framesDecoded(c) > f, 10_000, c + " still decoding on its owner");
                }
                JsonArray nodes = other.get("/api/nodes").array();
                assertFalse(nodes.encode().contains("rogue-node") || nodes.encode().contains(":" + fake.actualPort()), nodes.encode());
                assertTrue(TwoNodeCluster.invalidValues(owner, "argus.leases") > 0, "invalid leases counted in /metrics");
                assertTrue(TwoNodeCluster.invalidValues(owner, "argus.nodes") > 0, "the forged node entry counted in /metrics");
            } finally {
                fake.close();
            }
        }
    }

    /**
     * Finding: a process on the event-bus port paused a camera through the owner relay with no token, and WebSocket
     * clients received forged detections. Now the clustered event bus runs mutual TLS with the identity derived from
     * the secret: a member that joined Hazelcast under the derived name, its event bus in plain TCP or with a
     * certificate of its own, delivers nothing and receives nothing.
     */
    @Nested
    @Order(3)
    class EventBusWithoutSecretTest {
        @Test
        void aPlainOrWronglyCertifiedEventBusCannotPauseNorInjectNorListen() throws Exception {
            String cam = "cam1";
            RunningApp owner = cluster.ownerOf(cam);
            String relay = "argus.control.node." + owner.app.nodeId() + ".cameras";
            try (WsClient wsA = cluster.a.ws("/ws?includeEmpty=true"); WsClient wsB = cluster.b.ws("/ws?includeEmpty=true")) {
                for (String tls : List.of("none", "own")) {
                    String id = "bus-" + tls;
                    JsonObject started = cluster.rogue.send(op("vertx").put("id", id).put("name", cluster.derivedName())
                            .put("members", new JsonArray(cluster.members())).put("tls", tls), 120_000);
                    assertTrue(started.getBoolean("ok", false), started.encode());
                    cluster.rogue.send(op("listen").put("id", id).put("address", "argus.detections." + cam), 30_000);
                    JsonObject paused = cluster.rogue.send(op("request").put("id", id).put("address", relay)
                            .put("body", new JsonObject().put("action", "pause").put("id", cam)).put("timeoutMs", 3000), 30_000);
                    System.out.println("security: event bus " + tls + ": pause through " + relay + ": " + paused.encode());
                    assertFalse(paused.getBoolean("delivered", true), "the rogue's pause was delivered: " + paused.encode());
                    JsonObject forged = new JsonObject().put("type", "detections").put("cameraId", cam).put("frame", 1)
                            .put("captureTime", System.currentTimeMillis()).put("width", 160).put("height", 120)
                            .put("detections", new JsonArray().add(new JsonObject().put("classId", 0).put("className", "FORGED-INTRUDER")
                                    .put("confidence", 0.99).put("box", new JsonObject().put("x", 0).put("y", 0).put("w", 10).put("h", 10))));
                    cluster.rogue.send(op("publish").put("id", id).put("address", "argus.detections." + cam).put("body", forged).put("count", 20), 30_000);
                }
                // what the clients receive meanwhile: real detections, never a forged one
                long end = System.currentTimeMillis() + 3000;
                int real = 0;
                while (System.currentTimeMillis() < end) {
                    for (WsClient ws : List.of(wsA, wsB)) {
                        JsonObject m = ws.messages.poll(50, TimeUnit.MILLISECONDS);
                        if (m == null) continue;
                        assertFalse(m.encode().contains("FORGED-INTRUDER"), "a forged detection reached a WebSocket client: " + m.encode());
                        if ("detections".equals(m.getString("type"))) real++;
                    }
                }
                for (WsClient ws : List.of(wsA, wsB)) {
                    for (JsonObject m : new ArrayList<>(ws.messages)) assertFalse(m.encode().contains("FORGED-INTRUDER"), m.encode());
                }
                assertTrue(real > 0, "the clients still receive the real detections");
                int heardPlain = cluster.rogue.send(op("heard").put("id", "bus-none").put("address", "argus.detections." + cam), 30_000).getInteger("heard");
                int heardOwn = cluster.rogue.send(op("heard").put("id", "bus-own").put("address", "argus.detections." + cam), 30_000).getInteger("heard");
                System.out.println("security: clients received " + real + " real detection messages and no forged one; the rogue heard "
                        + heardPlain + " (plain) and " + heardOwn + " (own certificate) of " + cam + "'s detections");
                assertEquals(0, heardPlain, "detections reached the rogue's plain event bus");
                assertEquals(0, heardOwn, "detections reached the rogue's event bus with a certificate of its own");
                JsonObject status = cluster.ownerOf(cam).camera(cam);
                assertFalse(status.getBoolean("paused", false), "the camera was paused: " + status.encode());
                // the nodes themselves still talk over the event bus (mutual TLS with the derived identity): the other
                // node's answer for the camera carries the owner's live status, relayed
                JsonObject relayed = cluster.other(owner).camera(cam);
                assertTrue(relayed.containsKey("framesDecoded"), "relayed from the owner: " + relayed.encode());
            }
        }
    }

    /**
     * Finding: one malformed value in a cluster map ({@code {"heir":null,...}}, {@code this is not json {}) stopped all
     * claiming, or made {@code /api/cameras} and {@code /api/nodes} answer 500 on every node, with nothing logged. Now
     * each is ignored, counted in {@code /metrics} and logged once, and a camera added afterwards is still claimed.
     */
    @Nested
    @Order(4)
    class MalformedClusterValuesTest {
        @Test
        void garbageInEveryMapIsIgnoredCountedAndLoggedOnceAndClaimingGoesOn() throws Exception {
            joinWithDerivedName();
            List<String> garbage = List.of(new JsonObject().putNull("heir").put("owner", "x").put("epoch", 1).encode(), "this is not json {");
            String nodeA = cluster.a.app.nodeId();
            Map<String, List<String>> keys = Map.of(
                    "argus.leases", List.of("cam2", "ghost"),
                    "argus.cameras", List.of("cam2", "ghost"),
                    "argus.nodes", List.of(nodeA, "ghost"),
                    "argus.counts", List.of("cam1"),
                    "argus.scene-rules", List.of("cam1"),
                    "argus.camera-states", List.of("cam1"),
                    "argus.models", List.of("tiny"));
            int before = logged.size();
            for (String value : garbage) {
                for (Map.Entry<String, List<String>> e : keys.entrySet()) {
                    for (String key : e.getValue()) {
                        cluster.rogue.send(op("put").put("map", e.getKey()).put("key", key).put("value", value), 30_000);
                    }
                }
                for (RunningApp node : List.of(cluster.a, cluster.b)) {
                    for (int i = 0; i < 3; i++) { // several surveys see the value
                        assertEquals(200, node.get("/api/cameras").status(), "GET /api/cameras with " + value + " in the maps");
                        assertEquals(200, node.get("/api/nodes").status(), "GET /api/nodes with " + value + " in the maps");
                        assertEquals(200, node.get("/api/counts").status(), "GET /api/counts with " + value + " in the maps");
                        assertEquals(200, node.get("/api/cameras/cam1/zones").status(), "GET zones with " + value + " in the maps");
                        assertEquals(200, node.get("/ready").status());
                        Thread.sleep(300);
                    }
                }
            }
            // claiming goes on: a camera added now is claimed and runs
            RunningApp.Response added = cluster.a.call(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", "cam-new")
                    .put("url", TestMedia.h264(160, 120, 4, 10).toString()).put("loop", true).encode());
            assertEquals(201, added.status(), added.body());
            Waits.waitFor(() -> cluster.owners(cluster.a).containsKey("cam-new") && cluster.framesDecoded("cam-new") > 0, 20_000,
                    "cam-new claimed and decoding despite the garbage");
            for (String map : List.of("argus.leases", "argus.cameras", "argus.nodes", "argus.counts", "argus.scene-rules")) {
                double counted = Math.max(TwoNodeCluster.invalidValues(cluster.a, map), TwoNodeCluster.invalidValues(cluster.b, map));
                assertTrue(counted > 0, map + ": invalid values counted in /metrics, found " + counted);
            }
            List<String> about = logged.subList(before, logged.size()).stream().filter(l -> l.contains("key \"ghost\"") && l.contains("argus.leases")).toList();
            System.out.println("security: garbage in " + keys.keySet() + ": lines logged about argus.leases/ghost over the surveys: " + about);
            // two values in turn at that key, read by every survey of both nodes: logged once by each node
            assertTrue(!about.isEmpty() && about.size() <= 2, "logged once per node: " + about);
            assertNotEquals(-1.0, TwoNodeCluster.invalidValues(cluster.a, "argus.models"), "every map has its series");
        }
    }
}
