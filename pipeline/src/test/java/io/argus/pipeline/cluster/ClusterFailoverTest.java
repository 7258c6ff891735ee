package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.argus.pipeline.cluster.ClientRecord.Received;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Three (then up to four at once) Argus nodes as separate processes on loopback, six file cameras paced in real
 * time, a WebSocket client on node 1. The cluster's promises, measured: every camera owned by exactly one node, every
 * camera visible from any node, a killed node's (kill -9) and a frozen node's (SIGSTOP: heartbeats only) cameras
 * streaming again on the survivors within seconds, a stopped node (SIGTERM) handing its cameras over, a camera added
 * and removed by REST on one node seen on another (its zones deleted on every node), zones drawn and a pause set on a
 * node outliving its kill -9, a node alone below minSize not ready, a node with a conflicting
 * camera refused, no camera published by two nodes at once after the epoch filter, and, after a stop of every node and a
 * start of three on their cache directories (one with an older copy), the cameras added and deleted, the zones and the
 * pause set at run time exactly as before the stop.
 */
@Tag(Tiers.SYSTEM)
@Tag(Tiers.ALONE)
// the budget allows what the test's own bounds allow: a whole run took 147 s when a frozen node's cameras came back
// after 42 s (FROZEN_LIMIT_MS is 45 s), 64-93 s otherwise; the stop of every node and the restart of three add 27-31 s
// (two runs beside another build, load 3-10; the whole test then 113-121 s)
@Budget(seconds = 225)
class ClusterFailoverTest {
    static final int CAMERAS = 6;
    static final long FAILOVER_LIMIT_MS = 10_000;
    /** The graceful hand-over bound: a hand-over (SIGTERM) leaves a camera silent for at most 2 s. */
    static final long HANDOVER_GAP_LIMIT_MS = 2_000;
    /**
     * A frozen node is found only by missing heartbeats: maxNoHeartbeatMs plus a round. The nodes here allow 10 s of
     * silence, not the product's default 5 s: Hazelcast ignores a heartbeat older than half that allowance when it is
     * read, and beside a parallel build (load 6-7 on the 2-core machine, scripts/flaky-check.sh, 2026-11-29) heartbeats
     * were read 4.1 s after they were sent. Measured with 5 s: 4.8-14.2 s (median 5.6) over 19 such runs; with 10 s:
     * 9.7-21.2 s (median 10.8) over 7. Neither removes the rarer failure of this step (2 of 20 runs at 5 s, 2 of 10 at
     * 10 s): about one timeout after the freeze every survivor stops hearing the others at once and goes on alone
     * (docs/cluster.md, "A frozen node under load"). The nodes run the model at 64x64 ({@link TestConfig#light}); the
     * bound here only says the cameras do come back.
     */
    static final long FROZEN_LIMIT_MS = 45_000;
    static final int MAX_NO_HEARTBEAT_MS = 10_000;
    /**
     * A camera rebalanced onto a joining node is handed over warm, as at a SIGTERM; released cold, it waited for its
     * heir, up to a lease (10 s) when the heir was slow (2026-11-28 cluster soak), which this bound must catch. Measured
     * on the shared 2-core machine (Intel family 6 model 106, 2026-11-29): 627-2,028 ms in two runs alone, 398-2,245 ms
     * over four runs beside a parallel build (scripts/flaky-check.sh; 3 of the 4 then failed the 2 s bound this shared
     * with the SIGTERM hand-over, whose gap was 352-391 ms), and 2,950 ms once inside the whole suite under load 10-17.
     * Twenty runs beside a parallel build (scripts/flaky-check.sh, 2026-11-29, load 6-8): worst moved camera per run
     * 1,420-3,422 ms (median 1,992) in the 19 runs with one build beside them (load 6-8), and 4,727 ms in the one run with two more builds beside it (load 12), which failed the 4 s
     * bound then. Hence 6 s: above every measured gap, well below a cold hand-over.
     */
    static final long REBALANCE_GAP_LIMIT_MS = 6_000;

    final Vertx client = Vertx.vertx();
    final List<ClusterNode> nodes = new ArrayList<>();
    final List<Received> received = new CopyOnWriteArrayList<>();
    Path dir;
    List<String> members;


    /** Each node's cache directory, by name. */
    private final Map<String, Path> caches = new HashMap<>();

    @AfterEach
    void stop() throws Exception {
        for (ClusterNode n : nodes) n.close();
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void camerasAreOwnedOnceSeenEverywhereAndFailOverInSeconds() throws Exception {
        long t0 = System.currentTimeMillis();
        dir = TestMedia.dir().resolve("cluster-" + System.currentTimeMillis());
        Files.createDirectories(dir);
        Path video = TestMedia.h264(160, 120, 4, 10);
        int[] hz = {ClusterNode.freePort(), ClusterNode.freePort(), ClusterNode.freePort()};
        members = List.of("127.0.0.1:" + hz[0], "127.0.0.1:" + hz[1], "127.0.0.1:" + hz[2]);
        JsonArray cameras = new JsonArray();
        for (int i = 1; i <= CAMERAS; i++) cameras.add(TestConfig.camera("cam" + i, video.toString()).put("loop", true).put("realtime", true));
        for (int i = 0; i < 3; i++) nodes.add(startNode("node" + (i + 1), hz[i], cameras));
        ClusterNode n1 = nodes.get(0);
        ClusterNode n2 = nodes.get(1);
        ClusterNode n3 = nodes.get(2);
        for (ClusterNode n : nodes) await(n::ready, 150_000, n.name + " ready", n);
        long readyAt = System.currentTimeMillis();
        System.out.printf("cluster: 3 nodes ready after %d ms%n", readyAt - t0);

        // every camera owned by exactly one node, the same seen from every node, two each
        Map<String, String> owners = awaitOwners(Set.of(n1, n2, n3), 30_000, 2);
        System.out.printf("cluster: every camera owned once, 2 per node, %d ms after that: %s%n", System.currentTimeMillis() - readyAt, owners);

        // a WebSocket client on node 1 sees the cameras of nodes 2 and 3
        WsClient ws = WsClient.connect(client, n1.httpPort, "/ws?includeEmpty=true", null, 0);
        Thread drain = collect(ws);
        String id2 = n2.id();
        String id3 = n3.id();
        await(() -> seenFrom(id2) && seenFrom(id3), 20_000, "node 1's WebSocket receiving detections of nodes 2 and 3", n1);

        // REST: a camera added on node 3 is listed on node 1 and gets an owner
        ClusterNode.Response added = n3.call(HttpMethod.POST, "/api/cameras",
                TestConfig.camera("cam7", video.toString()).encode());
        assertEquals(201, added.status(), added.body());
        await(() -> ownerOf(n1, "cam7") != null, 15_000, "cam7 (added on node 3) owned, as listed on node 1", n1);

        // what a user changes at run time is cluster-wide: zones drawn on node 3 and a pause of one of node 3's cameras
        // outlive node 3 (checked after its kill below)
        String zones = "[{\"id\": \"porch\", \"polygon\": [[0, 0], [80, 0], [80, 60]], \"classes\": [\"person\"]}]";
        ClusterNode.Response drawn = n3.call(HttpMethod.PUT, "/api/cameras/cam7/zones", zones);
        assertEquals(200, drawn.status(), drawn.body());
        Set<String> ofNode3 = new HashSet<>(camerasOf(n1, id3));
        assertTrue(ofNode3.size() >= 2, "node 3 owns cameras before it is killed: " + ofNode3);
        String paused = new TreeSet<>(ofNode3).first();
        ClusterNode.Response pause = n3.call(HttpMethod.POST, "/api/cameras/" + paused + "/pause", "");
        assertEquals(200, pause.status(), pause.body());
        ofNode3.remove(paused);   // silent by choice: not among those that must stream again

        // kill -9 of node 3: its cameras stream again on the survivors
        long killedAt = System.currentTimeMillis();
        n3.kill();
        await(() -> ofNode3.stream().allMatch(c -> firstAfter(c, killedAt, id3) != null), 30_000,
                "node 3's cameras " + ofNode3 + " streaming from survivors", n1, n2);
        await(() -> {
            String owner = ownerOf(n1, paused);
            return owner != null && !owner.equals(id3) && pausedOn(n1, paused);
        }, 30_000, paused + " (paused on node 3) owned by a survivor and still paused there", n1, n2);
        assertEquals(new JsonArray(zones).getJsonObject(0).getString("id"),
                n2.get("/api/cameras/cam7/zones").array().getJsonObject(0).getString("id"), "cam7's zones, drawn on node 3, on node 2");
        // resumed: the steps below expect every camera to stream wherever it moves
        ClusterNode.Response resumed = n1.call(HttpMethod.POST, "/api/cameras/" + paused + "/resume", "");
        assertEquals(200, resumed.status(), resumed.body());
        long failover = 0;
        for (String c : ofNode3) failover = Math.max(failover, firstAfter(c, killedAt, id3).atMs() - killedAt);
        System.out.printf("cluster: kill -9 of node 3 -> its %d camera(s) stream again on survivors after %d ms (worst camera)%n",
                ofNode3.size(), failover);
        assertTrue(failover <= FAILOVER_LIMIT_MS, "failover took " + failover + " ms, limit " + FAILOVER_LIMIT_MS);

        // two more nodes join: cameras spread to them again
        ClusterNode n4 = startNode("node4", ClusterNode.freePort(), cameras);
        nodes.add(n4);
        ClusterNode n5 = startNode("node5", ClusterNode.freePort(), cameras);
        nodes.add(n5);
        await(n4::ready, 150_000, "node 4 ready", n4);
        await(n5::ready, 150_000, "node 5 ready", n5);
        String id4 = n4.id();
        String id5 = n5.id();
        await(() -> !camerasOf(n1, id4).isEmpty() && !camerasOf(n1, id5).isEmpty(), 30_000,
                "nodes 4 and 5 taking cameras over (rebalancing)", n1, n4, n5);
        // each camera moved onto a newcomer is handed over warm: it publishes on its old node until it runs on the new
        Map<String, Long> moveGaps = new TreeMap<>();
        for (String node : List.of(id4, id5)) {
            for (String c : camerasOf(n1, node)) {
                await(() -> firstFrom(c, node) != null, 20_000, c + " streaming from its new node " + node, n1, n4, n5);
                Received first = firstFrom(c, node);
                Received last = lastBefore(c, first.atMs());
                if (last != null) moveGaps.put(c, first.atMs() - last.atMs());
            }
        }
        System.out.printf("cluster: rebalancing onto nodes 4 and 5: silence per moved camera (ms) %s%n", moveGaps);
        for (Map.Entry<String, Long> g : moveGaps.entrySet()) {
            assertTrue(g.getValue() <= REBALANCE_GAP_LIMIT_MS, "camera " + g.getKey() + " was silent " + g.getValue()
                    + " ms while it moved to a joining node, limit " + REBALANCE_GAP_LIMIT_MS);
        }

        // SIGSTOP of node 5: a hung machine, connections open; only missing heartbeats tell (MAX_NO_HEARTBEAT_MS).
        // The survivors once split here (a Hazelcast IO thread spinning on a new connection to the frozen node:
        // docs/cluster.md, "A frozen node"; FrozenPeerTest).
        {
            Set<String> ofNode5 = camerasOf(n1, id5);
            long frozenAt = System.currentTimeMillis();
            n5.freeze();
            // the survivors' threads while they should be hearing each other but have been seen not to (about one
            // heartbeat allowance after the freeze), into their logs: what a split's waits are made of
            Thread dumps = new Thread(() -> {
                try {
                    for (long at : new long[] {MAX_NO_HEARTBEAT_MS + 2_000, MAX_NO_HEARTBEAT_MS + 6_000}) {
                        Pace.until(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(frozenAt + at - System.currentTimeMillis()),
                                "the moment of a thread dump after the freeze");
                        for (ClusterNode n : List.of(n1, n2, n4)) n.threadDump();
                    }
                } catch (InterruptedException e) {
                    // the failover came first: the dumps left are not needed
                } catch (Exception e) {
                    System.out.println("cluster: thread dumps after the freeze stopped: " + e);
                }
            }, "survivor-thread-dumps");
            dumps.setDaemon(true);
            dumps.start();
            await(() -> ofNode5.stream().allMatch(c -> firstAfter(c, frozenAt, id5) != null), FROZEN_LIMIT_MS + 15_000,
                    "node 5's cameras " + ofNode5 + " streaming from the others after it froze", n1, n2, n4);
            dumps.interrupt();   // no dump may fall into the steps below (a SIGQUIT beside a SIGTERM's hand-over)
            dumps.join(10_000);
            long silent = 0;
            for (String c : ofNode5) silent = Math.max(silent, firstAfter(c, frozenAt, id5).atMs() - frozenAt);
            System.out.printf("cluster: SIGSTOP of node 5 (heartbeats only) -> its %d camera(s) stream again after %d ms (worst camera)%n",
                    ofNode5.size(), silent);
            if (silent > FROZEN_LIMIT_MS) {
                // it once took 45 s where 5-10 s is usual, cause unknown: the survivors' decisions and membership say why
                fail("failover of a frozen node took " + silent + " ms, limit " + FROZEN_LIMIT_MS + " (node 5 frozen at epoch ms "
                        + frozenAt + ")\n" + n1.decisions(60) + "\n" + n2.decisions(60) + "\n" + n4.decisions(60));
            }
        }
        n5.kill();

        // SIGTERM of node 2: it releases its leases, the others take its cameras at once
        await(() -> allOwned(n1) && !camerasOf(n1, id2).isEmpty()
                        && camerasOf(n1, id2).stream().allMatch(c -> streamingFrom(c, id2)), 30_000,
                "every camera owned again, some by node 2 and streaming from it", n1, n2, n4);
        Set<String> ofNode2 = camerasOf(n1, id2);
        long stoppedAt = System.currentTimeMillis();
        n2.terminate();
        await(() -> ofNode2.stream().allMatch(c -> firstAfter(c, stoppedAt, id2) != null), 30_000,
                "node 2's cameras " + ofNode2 + " streaming from the others", n1, n4);
        long gap = 0;
        long sinceStop = 0;
        for (String c : ofNode2) {
            Received first = firstAfter(c, stoppedAt, id2);
            Received last = lastBefore(c, first.atMs());
            gap = Math.max(gap, first.atMs() - (last != null ? last.atMs() : stoppedAt));
            sinceStop = Math.max(sinceStop, first.atMs() - stoppedAt);
        }
        System.out.printf("cluster: SIGTERM of node 2 -> hand-over gap %d ms (the camera's last message before the new owner's"
                + " first, worst camera), %d ms after the signal%n", gap, sinceStop);
        assertTrue(n2.waitFor(20), "node 2 exits after SIGTERM");
        assertTrue(sinceStop <= FAILOVER_LIMIT_MS, "hand-over took " + sinceStop + " ms");
        // warm hand-over: the heir runs the camera before the old owner stops, so the gap is a round and a frame
        assertTrue(gap <= HANDOVER_GAP_LIMIT_MS, "hand-over gap " + gap + " ms, limit " + HANDOVER_GAP_LIMIT_MS + "\n" + tails(n1, n4));

        // The survivors as one cluster before REST changes are sent round it. Under CPU starvation the two have each
        // lost sight of the other when node 2 left (each then alone, below minSize, running nothing, until Hazelcast
        // merged them 20 s later: a loaded run, 2026-11-29); what follows measures propagation, not that healing.
        long leftAt = System.currentTimeMillis();
        await(() -> nodeCount(n1) == 2 && nodeCount(n4) == 2, 90_000, "nodes 1 and 4 each listing the two of them", n1, n4);
        System.out.printf("cluster: nodes 1 and 4 one cluster %d ms after node 2 exited%n", System.currentTimeMillis() - leftAt);

        // REST: a camera removed on node 4 stops on its owner and leaves every node's list, and takes its zones with it,
        // also the copy node 1 kept in its file when they were drawn there
        ClusterNode.Response redrawn = n1.call(HttpMethod.PUT, "/api/cameras/cam7/zones", zones);
        assertEquals(200, redrawn.status(), redrawn.body());
        Path cam7Zones = caches.get("node1").resolve("scenes/cam7.json");
        assertTrue(Files.isRegularFile(cam7Zones));
        assertEquals(200, n4.call(HttpMethod.DELETE, "/api/cameras/cam7", null).status());
        await(() -> !Files.exists(cam7Zones), 10_000, "node 1's copy of cam7's zones deleted", n1, n4);
        await(() -> {
            try {
                return n1.get("/api/cameras").array().stream().noneMatch(o -> "cam7".equals(((JsonObject) o).getString("id")));
            } catch (Exception e) {
                return false;
            }
        }, 30_000, "cam7 gone from node 1's list", n1, n4);   // 30 s as the waits above: node 2 left just before, and
        // its partitions' migration can hold map reads for seconds on a loaded 2-core machine (10 s failed once in CI)
        long removedAt = System.currentTimeMillis();
        Waits.holdsFor(() -> received.stream().noneMatch(r -> r.camera().equals("cam7") && r.atMs() > removedAt + 1500),
                3000, "no detections of cam7 once removed");

        // what a user changes at run time outlives a stop of every node (checked after the restart at the end): two
        // cameras added, zones drawn on one of them and on a camera of the file, a camera paused, one of the file deleted
        String zones8 = "[{\"id\": \"gate\", \"polygon\": [[0, 0], [40, 0], [40, 40]], \"classes\": [\"person\"]}]";
        for (String added2 : List.of("cam8", "cam9")) {
            ClusterNode.Response a = n4.call(HttpMethod.POST, "/api/cameras", TestConfig.camera(added2, video.toString()).encode());
            assertEquals(201, a.status(), a.body());
        }
        assertEquals(200, n1.call(HttpMethod.PUT, "/api/cameras/cam8/zones", zones8).status());
        assertEquals(200, n4.call(HttpMethod.PUT, "/api/cameras/cam3/zones", zones).status());
        JsonArray cam8Zones = n4.get("/api/cameras/cam8/zones").array();
        JsonArray cam3Zones = n1.get("/api/cameras/cam3/zones").array();
        assertEquals("gate", cam8Zones.getJsonObject(0).getString("id"));
        String held = paused.equals("cam4") ? "cam5" : "cam4";   // not the camera paused on node 3, resumed since
        await(() -> ownerOf(n1, held) != null, 30_000, held + " owned, to be paused", n1, n4);
        ClusterNode.Response pausedAgain = n1.call(HttpMethod.POST, "/api/cameras/" + held + "/pause", "");
        assertEquals(200, pausedAgain.status(), pausedAgain.body());
        assertEquals(200, n1.call(HttpMethod.DELETE, "/api/cameras/cam2", null).status());
        // each live node's copy of the record says so (node 3 was killed and node 2 left before: their copies are older)
        for (String node : List.of("node1", "node4")) {
            await(() -> {
                JsonObject record = changesKept(node);
                return record.getJsonObject("cam2", new JsonObject()).getBoolean("removed", false)
                        && record.getJsonObject(held, new JsonObject()).getBoolean("paused", false)
                        && record.getJsonObject("cam8", new JsonObject()).containsKey("rules")
                        && record.getJsonObject("cam3", new JsonObject()).containsKey("rules")
                        && record.containsKey("cam9");
            }, 10_000, node + "'s copy of the cluster's camera changes", n1, n4);
        }

        // minSize 2: a node left alone claims nothing and is not ready
        n4.terminate();
        assertTrue(n4.waitFor(20), "node 4 exits after SIGTERM");
        await(() -> !n1.ready(), 15_000, "node 1 alone (minSize 2) not ready", n1);

        // a node whose config gives cam1 another address refuses to join with that mismatch
        JsonArray conflicting = cameras.copy();
        conflicting.getJsonObject(0).put("url", TestMedia.h264(160, 120, 4, 5).toString());
        ClusterNode n6 = startNode("node6", ClusterNode.freePort(), conflicting);
        nodes.add(n6);
        assertTrue(n6.waitFor(120), "node 6 exits\n" + n6.tail());
        assertNotEquals(0, n6.exitCode(), n6.tail());
        assertTrue(n6.output().contains("camera \"cam1\" is already in the cluster with another definition"), n6.tail());

        drain.interrupt();
        ws.close();
        checkNoOverlap();

        // every node stops (kill -9), then three start again on their cache directories, node 3's copy older than the
        // others' (it still has cam7, and the pause since lifted): the cameras, zones and pauses are exactly as before
        n1.kill();
        long restartAt = System.currentTimeMillis();
        List<ClusterNode> again = new ArrayList<>();
        for (String node : List.of("node1", "node3", "node4")) {
            ClusterNode n = startNode(node + "-again", node.equals("node1") ? hz[0] : node.equals("node3") ? hz[2] : ClusterNode.freePort(),
                    cameras, caches.get(node));
            nodes.add(n);
            again.add(n);
        }
        for (ClusterNode n : again) await(n::ready, 150_000, n.name + " ready", n);
        ClusterNode r1 = again.get(0);
        // as the nodes join, cameras move (rebalancing): the state is awaited, not read once
        Map<String, Boolean> expected = new TreeMap<>();
        for (String c : List.of("cam1", "cam3", "cam4", "cam5", "cam6", "cam8", "cam9")) expected.put(c, c.equals(held));
        Map<String, Boolean> restored = new TreeMap<>();
        await(() -> {
            restored.clear();
            restored.putAll(pausedByCamera(r1));
            return restored.equals(expected);
        }, 45_000, () -> "every camera of before the stop, and no other, owned again, only " + held + " paused (as the"
                + " owners say: null while none can tell); last seen " + restored, again.toArray(new ClusterNode[0]));
        System.out.printf("cluster: a stop of every node, then 3 restarted: the run-time changes back after %d ms: %s%n",
                System.currentTimeMillis() - restartAt, restored);
        assertEquals(cam8Zones, again.get(1).get("/api/cameras/cam8/zones").array(), "cam8's zones (drawn on node 1) on node 3");
        assertEquals(cam3Zones, again.get(2).get("/api/cameras/cam3/zones").array(), "cam3's zones (drawn on node 4)");
        assertEquals(404, r1.call(HttpMethod.GET, "/api/cameras/cam2", null).status(), "cam2, deleted, not seeded back");
        assertEquals(404, r1.call(HttpMethod.GET, "/api/cameras/cam7", null).status(), "cam7, deleted, not brought back by node 3's older copy");
        System.out.printf("cluster: whole test %d ms, %d messages received%n", System.currentTimeMillis() - t0, received.size());
    }

    /** The record of run-time camera changes in a node's cache directory, by camera (empty while there is none). */
    private JsonObject changesKept(String node) {
        try {
            return new JsonObject(Files.readString(caches.get(node).resolve("state/cluster-cameras.json"))).getJsonObject("cameras");
        } catch (Exception e) {
            return new JsonObject();
        }
    }

    /** Every camera {@code n} lists: whether its owner says it is paused (null while none owns it or can tell). */
    private static Map<String, Boolean> pausedByCamera(ClusterNode n) {
        Map<String, Boolean> out = new TreeMap<>();
        try {
            for (Object o : n.get("/api/cameras").array()) {
                String id = ((JsonObject) o).getString("id");
                Object paused = n.get("/api/cameras/" + id).json().getValue("paused");
                out.put(id, paused instanceof Boolean b ? b : null);
            }
        } catch (Exception e) {
            out.put("(unreachable)", null);
        }
        return out;
    }

    private ClusterNode startNode(String name, int hazelcastPort, JsonArray cameras) throws Exception {
        return startNode(name, hazelcastPort, cameras, null);
    }

    /** {@code cache}: the node's cache directory (null: a fresh one). */
    private ClusterNode startNode(String name, int hazelcastPort, JsonArray cameras, Path cache) throws Exception {
        JsonObject config = TestConfig.light();
        if (cache != null) config.put("cacheDir", cache.toString());
        else caches.put(name, Path.of(config.getString("cacheDir")));
        int http = ClusterNode.freePort();
        config.getJsonObject("http").put("port", http);
        config.put("cameras", cameras.copy());
        config.put("snapshots", new JsonObject().put("fps", 0));
        List<String> all = new ArrayList<>(members);
        if (!all.contains("127.0.0.1:" + hazelcastPort)) all.add("127.0.0.1:" + hazelcastPort);
        config.put("cluster", new JsonObject().put("enabled", true).put("name", "argus-test-" + dir.getFileName())
                .put("host", "127.0.0.1").put("port", hazelcastPort).put("members", new JsonArray(all))
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", MAX_NO_HEARTBEAT_MS).put("minSize", 2)
                .put("leaseMs", 2 * MAX_NO_HEARTBEAT_MS).put("renewIntervalMs", 300).put("secret", TestCluster.SECRET));
        return ClusterNode.start(name, config, http, hazelcastPort, dir, client);
    }

    /** Waits until every node lists every camera with the same live owner, each owning {@code each}. */
    private Map<String, String> awaitOwners(Set<ClusterNode> from, long timeoutMs, int each) throws Exception {
        String[] lastSeen = {""};
        List<Map<String, String>> result = new ArrayList<>();
        Waits.waitFor(() -> {
            String last = "";
            Map<String, String> agreed = null;
            boolean ok = true;
            for (ClusterNode n : from) {
                Map<String, String> owners = new TreeMap<>();
                for (Object o : n.get("/api/cameras").array()) {
                    JsonObject c = (JsonObject) o;
                    owners.put(c.getString("id"), c.getString("owner"));
                }
                last = n.name + ": " + owners;
                if (owners.size() != CAMERAS || owners.containsValue(null) || (agreed != null && !agreed.equals(owners))) ok = false;
                agreed = owners;
            }
            if (ok) {
                Map<String, Integer> counts = new HashMap<>();
                agreed.values().forEach(v -> counts.merge(v, 1, Integer::sum));
                Set<String> ids = new HashSet<>();
                for (ClusterNode n : from) ids.add(n.id());
                // /api/nodes agrees: the cameras each node owns are disjoint and cover all
                Set<String> union = new HashSet<>();
                int total = 0;
                for (Object o : from.iterator().next().get("/api/nodes").array()) {
                    JsonArray owned = ((JsonObject) o).getJsonArray("cameras");
                    total += owned.size();
                    owned.forEach(c -> union.add((String) c));
                }
                if (counts.keySet().equals(ids) && counts.values().stream().allMatch(c -> c == each) && total == CAMERAS && union.size() == CAMERAS) {
                    result.add(agreed);
                    return true;
                }
                last += " counts " + counts;
            }
            lastSeen[0] = last;
            return false;
        }, timeoutMs, 250, () -> "cameras owned once each; last: " + lastSeen[0] + "\n"
                + tails(from.toArray(new ClusterNode[0])));
        return result.get(0);
    }

    private Thread collect(WsClient ws) { return ClientRecord.collect(ws, received, "cluster-test-ws"); }

    private boolean seenFrom(String node) {
        return received.stream().anyMatch(r -> node.equals(r.node()));
    }

    private Received firstAfter(String camera, long afterMs, String notFrom) {
        for (Received r : received) {
            if (r.camera().equals(camera) && r.atMs() >= afterMs && !notFrom.equals(r.node())) return r;
        }
        return null;
    }

    /** The camera's first message received from {@code node}. */
    private Received firstFrom(String camera, String node) {
        for (Received r : received) if (r.camera().equals(camera) && node.equals(r.node())) return r;
        return null;
    }

    /** The camera's last message received before {@code beforeMs}, from any node. */
    private Received lastBefore(String camera, long beforeMs) {
        Received last = null;
        for (Received r : received) if (r.camera().equals(camera) && r.atMs() < beforeMs) last = r;
        return last;
    }

    /** A message of {@code camera} from {@code node} within the last two seconds. */
    private boolean streamingFrom(String camera, String node) {
        long since = System.currentTimeMillis() - 2000;
        for (Received r : received) if (r.camera().equals(camera) && node.equals(r.node()) && r.atMs() >= since) return true;
        return false;
    }

    private static String ownerOf(ClusterNode n, String camera) {
        try {
            return n.get("/api/cameras/" + camera).json().getString("owner");
        } catch (Exception e) {
            return null;
        }
    }

    /** Whether {@code camera} is paused, as {@code n} shows it (its owner's live state). */
    private static boolean pausedOn(ClusterNode n, String camera) {
        try {
            return n.get("/api/cameras/" + camera).json().getBoolean("paused", false);
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean allOwned(ClusterNode n) {
        try {
            return n.get("/api/cameras").array().stream().allMatch(o -> ((JsonObject) o).getString("owner") != null);
        } catch (Exception e) {
            return false;
        }
    }

    /** How many nodes {@code n} lists ({@code /api/nodes}), -1 when it does not answer. */
    private static int nodeCount(ClusterNode n) {
        try {
            return n.get("/api/nodes").array().size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static Set<String> camerasOf(ClusterNode n, String node) {
        Set<String> out = new HashSet<>();
        try {
            for (Object o : n.get("/api/cameras").array()) {
                JsonObject c = (JsonObject) o;
                if (node.equals(c.getString("owner"))) out.add(c.getString("id"));
            }
        } catch (Exception e) {
            // not reachable this time
        }
        return out;
    }

    /** After node 1's epoch filter: {@link ClientRecord#checkNoOverlap}. */
    private void checkNoOverlap() {
        ClientRecord.checkNoOverlap(received, "node 1's client").forEach((camera, epochs) -> System.out.println(
                "cluster: " + camera + " epochs " + epochs.keySet() + ", " + ClientRecord.count(received, camera) + " messages"));
    }

    private void await(BooleanSupplier condition, long timeoutMs, String what, ClusterNode... show) throws Exception {
        await(condition, timeoutMs, () -> what, show);
    }

    private void await(BooleanSupplier condition, long timeoutMs, java.util.function.Supplier<String> what, ClusterNode... show) throws Exception {
        Waits.waitFor(() -> {
            if (condition.getAsBoolean()) return true;
            for (ClusterNode n : nodes) {
                if (!n.alive() && List.of(show).contains(n)) fail(n.name + " exited while waiting for " + what.get() + "\n" + n.tail());
            }
            return false;
        }, timeoutMs, 200, () -> what.get() + "\n" + tails(show));
    }

    private static String tails(ClusterNode... show) {
        StringBuilder sb = new StringBuilder();
        for (ClusterNode n : show) sb.append(n.tail()).append('\n');
        return sb.toString();
    }
}
