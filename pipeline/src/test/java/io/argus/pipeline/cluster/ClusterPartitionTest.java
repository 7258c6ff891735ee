package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.testing.NetworkNamespaces;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.pipeline.cluster.ClientRecord.Received;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real network partition (docs/cluster.md, "Partition"). Three Argus nodes as separate JVMs, each in its own
 * network namespace on a bridge ({@link NetworkNamespaces}; root only, skipped elsewhere), six file cameras paced in
 * real time, WebSocket clients on nodes 1 and 3. Node 3 is then cut off from nodes 1 and 2 by silent packet loss
 * (blackhole routes on both sides) while the test still reaches all three, and the cluster's promises are measured:
 * <ul>
 * <li>nodes 1 and 2 (two members, minSize 2) take node 3's cameras within missing heartbeats plus lease rounds;</li>
 * <li>node 3, alone below minSize, answers 503 on {@code /ready}, holds no lease and publishes nothing of its own;</li>
 * <li>sampled every 100 ms: node 3's last frames and the new owners' first frames of a camera overlap in capture
 *     time by less than a lease;</li>
 * <li>after the heal and Hazelcast's merge: one owner per camera, the same on every node, node 3 ready and owning
 *     cameras again, and the event bus delivering across the former split both ways (node 1's client gets node 3's
 *     cameras, node 3's client node 1's: vertx-hazelcast #90 and #109 report subscriptions lost after a merge);</li>
 * <li>per client, over the whole run and after each gateway's epoch filter: epochs never go back, an epoch comes from
 *     one node, two owners' frames never interleave in capture time.</li>
 * </ul>
 */
@Tag(Tiers.SYSTEM)
@Tag(Tiers.ALONE)
@Budget(seconds = 130)
class ClusterPartitionTest {
    static final int CAMERAS = 6;
    static final int HTTP_PORT = 8080;
    static final int HAZELCAST_PORT = 5701;
    static final int MAX_NO_HEARTBEAT_MS = 5000;
    static final int LEASE_MS = 10_000;
    /**
     * Node 3's cameras streaming from nodes 1 and 2: missing heartbeats (maxNoHeartbeatMs) plus a few rounds; a lease
     * more covers a partition migration that holds a claim, and the rest a loaded 2-core machine.
     */
    static final long TAKEOVER_LIMIT_MS = MAX_NO_HEARTBEAT_MS + LEASE_MS + 10_000;
    /** Node 3 sees itself alone (missing heartbeats too) and stops: not ready within the same bound. */
    static final long FENCE_LIMIT_MS = TAKEOVER_LIMIT_MS;
    /** After /ready turned 503, node 3's last own detection may still be on its way (inference queue, socket). */
    static final long LATE_OWN_MS = 2000;
    /** The partition lasts at least this long: two leases, past the epoch filter's forget time. */
    static final long MIN_PARTITION_MS = 2L * LEASE_MS;
    /** Heal to merge: Hazelcast's merge runs every 10 s (HazelcastSettings), then a join and a partition migration. */
    static final long MERGE_LIMIT_MS = 60_000;

    final Vertx client = Vertx.vertx();
    final String token = "partition-" + UUID.randomUUID();
    final List<ClusterNode> nodes = new ArrayList<>();
    final List<WsClient> sockets = new ArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    /** What the WebSocket clients on node 1 and node 3 received (after each node's epoch filter). */
    final List<Received> at1 = new CopyOnWriteArrayList<>();
    final List<Received> at3 = new CopyOnWriteArrayList<>();
    /** Node id to "node1".."node3", for what the test prints. */
    final Map<String, String> names = new java.util.concurrent.ConcurrentHashMap<>();
    NetworkNamespaces net;
    Thread hook;
    Path dir;

    /** A detection message as a client got it. */

    @AfterEach
    void stop() throws Exception {
        for (Thread t : threads) t.interrupt();
        for (WsClient w : sockets) w.close();
        try {
            stopNodes();
        } finally {
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException ignored) {
                    // shutting down
                }
            }
            try {
                if (net != null) net.close();
            } finally {
                client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** SIGTERM to every node at once, kill -9 after 15 s: no process may keep a namespace alive. */
    private void stopNodes() throws InterruptedException {
        for (ClusterNode n : nodes) n.terminate();
        for (ClusterNode n : nodes) {
            if (!n.waitFor(15)) n.kill();
            n.close();
        }
    }

    @Test
    void aMinorityNodeCutOffStopsTheMajorityTakesOverAndTheMergeHeals() throws Exception {
        String why = NetworkNamespaces.unavailable();
        assumeTrue(why == null, () -> "no network namespaces here: " + why);
        try {
            net = NetworkNamespaces.create(3);
        } catch (IOException e) {
            assumeTrue(false, "cannot build the test network (bridge, veth): " + e.getMessage());
        }
        // should the test JVM be stopped, the nodes must die before the namespaces go (NetworkNamespaces' own hook)
        hook = new Thread(() -> nodes.forEach(n -> {
            try {
                n.kill();
            } catch (InterruptedException ignored) {
                // shutting down
            }
        }), "partition-test-nodes");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.printf("cluster: partition network %s.0/24 on bridge %s, namespaces %s..%s, cut by blackhole routes%n",
                net.subnet, net.bridgeName(), net.name(1), net.name(3));

        long t0 = System.currentTimeMillis();
        dir = TestMedia.dir().resolve("cluster-partition-" + System.currentTimeMillis());
        Files.createDirectories(dir);
        Path video = TestMedia.h264(160, 120, 4, 10);
        JsonArray cameras = new JsonArray();
        for (int i = 1; i <= CAMERAS; i++) cameras.add(TestConfig.camera("cam" + i, video.toString()).put("loop", true).put("realtime", true));
        for (int i = 1; i <= 3; i++) nodes.add(startNode(i, cameras));
        ClusterNode n1 = nodes.get(0);
        ClusterNode n2 = nodes.get(1);
        ClusterNode n3 = nodes.get(2);
        for (ClusterNode n : nodes) {
            await(n::ready, 150_000, n.name + " ready (with minSize 2 that needs a second member: if no node ever is,"
                    + " check that the bridge forwards between namespaces, e.g. br_netfilter with an iptables FORWARD policy of DROP)", n);
        }
        long readyAt = System.currentTimeMillis();
        System.out.printf("cluster: partition 3 nodes ready after %d ms%n", readyAt - t0);
        Map<String, String> owners = awaitOwners(List.of(n1, n2, n3), 30_000);
        String id1 = n1.id();
        String id2 = n2.id();
        String id3 = n3.id();
        for (ClusterNode n : nodes) names.put(n.id(), n.name);
        System.out.printf("cluster: partition every camera owned once, 2 per node, %d ms after that: %s%n",
                System.currentTimeMillis() - readyAt, named(owners));

        // a WebSocket client on node 1 and one on node 3, each seeing the cameras of all three nodes
        connect(n1, at1);
        connect(n3, at3);
        await(() -> Set.of(id1, id2, id3).stream().allMatch(id -> seen(at1, id, 0) && seen(at3, id, 0)), 20_000,
                "both clients receiving detections of all three nodes", n1, n2, n3);

        // every camera's first detection from its owner at the client that reads its epoch below (a node streaming
        // does not mean each of its cameras has sent one yet: cam2 had not, once, in the fresh root)
        await(() -> owners.entrySet().stream().allMatch(e -> fromOwner(id3.equals(e.getValue()) ? at3 : at1, e.getKey(), e.getValue())),
                20_000, "a detection of every camera from its owner", n1, n2, n3);

        // the cut: node 3 from nodes 1 and 2, both ways; the test still reaches all three over the bridge
        Set<String> ofNode3 = new TreeSet<>(camerasOf(owners, id3));
        Map<String, Long> oldEpoch = new HashMap<>();
        for (String c : ofNode3) oldEpoch.put(c, lastEpoch(at3, c, id3));
        Map<String, Long> majorityEpoch = new TreeMap<>();
        for (var e : owners.entrySet()) if (!id3.equals(e.getValue())) majorityEpoch.put(e.getKey(), lastEpoch(at1, e.getKey(), e.getValue()));
        Overlap overlap = new Overlap(ofNode3, id3, oldEpoch);
        long cut = System.currentTimeMillis();
        net.isolate(3, 1, 2);
        overlap.start(cut);

        // watched every 200 ms: membership on each side, node 3's readiness and leases, the takeover
        long seen12 = -1;
        long alone3 = -1;
        long notReady3 = -1;
        long released3 = -1;
        long takeover = -1;
        long end = cut + Math.max(TAKEOVER_LIMIT_MS, FENCE_LIMIT_MS) + 5_000;
        while (System.currentTimeMillis() < end) {
            long now = System.currentTimeMillis();
            if (seen12 < 0 && metric(n1, "argus_cluster_members") == 2 && metric(n2, "argus_cluster_members") == 2) seen12 = now - cut;
            if (alone3 < 0 && metric(n3, "argus_cluster_members") == 1) alone3 = now - cut;
            if (notReady3 < 0 && readyStatus(n3) == 503) notReady3 = now - cut;
            if (released3 < 0 && metric(n3, "argus_cluster_cameras_held") == 0) released3 = now - cut;
            if (takeover < 0 && ofNode3.stream().allMatch(c -> firstAfter(at1, c, cut, id3) != null)) {
                takeover = 0;
                for (String c : ofNode3) takeover = Math.max(takeover, firstAfter(at1, c, cut, id3).atMs() - cut);
            }
            if (seen12 >= 0 && alone3 >= 0 && notReady3 >= 0 && released3 >= 0 && takeover >= 0) break;
            for (ClusterNode n : nodes) if (!n.alive()) fail(n.name + " exited during the partition\n" + n.tail());
            Pace.holdMillis(200, "the sampling period of the partition's timings");
        }
        System.out.printf("cluster: partition cut -> nodes 1+2 see 2 members after %d ms, node 3 sees itself alone after %d ms%n",
                seen12, alone3);
        System.out.printf("cluster: partition cut -> node 3's %d camera(s) %s stream from nodes 1/2 after %d ms (worst camera)%n",
                ofNode3.size(), ofNode3, takeover);
        System.out.printf("cluster: partition cut -> node 3 /ready 503 after %d ms, holds no lease after %d ms%n", notReady3, released3);
        assertTrue(takeover >= 0 && takeover <= TAKEOVER_LIMIT_MS, "node 3's cameras " + ofNode3 + " did not stream from nodes 1/2 within "
                + TAKEOVER_LIMIT_MS + " ms (" + takeover + ")\n" + tails(n1, n2));
        assertTrue(notReady3 >= 0 && notReady3 <= FENCE_LIMIT_MS, "node 3 alone still ready after " + FENCE_LIMIT_MS + " ms\n" + n3.tail());
        assertTrue(released3 >= 0, "node 3 alone still holds leases\n" + n3.tail());
        assertTrue(seen12 >= 0 && alone3 >= 0, "membership on the two sides: nodes 1+2 " + seen12 + ", node 3 " + alone3);

        // node 3 quiet: nothing of its own reaches its client once it stopped (held as long as the partition lasts)
        long notReadyAt = cut + notReady3;
        await(() -> System.currentTimeMillis() >= Math.max(cut + MIN_PARTITION_MS, notReadyAt + LATE_OWN_MS + 5000), MIN_PARTITION_MS + 60_000,
                "the partition's minimum length", n1, n2, n3);
        Received lastOwn = lastFrom(at3, id3);
        long lastOwnAfterCut = lastOwn != null ? lastOwn.atMs() - cut : -1;
        System.out.printf("cluster: partition node 3's last own detection reached its client %d ms after the cut (%d ms after /ready said 503)%n",
                lastOwnAfterCut, lastOwn != null ? lastOwn.atMs() - notReadyAt : 0);
        assertTrue(lastOwn == null || lastOwn.atMs() <= notReadyAt + LATE_OWN_MS, () -> "node 3 published its own detections "
                + (lastOwn.atMs() - notReadyAt) + " ms after it turned not ready\n" + n3.tail());
        // no second owner on the small side: node 3 published only its own cameras, at the epochs it had before the cut
        for (Received r : at3) {
            if (r.atMs() >= cut && id3.equals(r.node())) {
                assertTrue(ofNode3.contains(r.camera()) && r.epoch() == oldEpoch.get(r.camera()), () -> "node 3, alone, published "
                        + r.camera() + " at epoch " + r.epoch() + " (it owned " + oldEpoch + " before the cut)\n" + n3.tail());
            }
        }
        // node 3 alone knows no owner: its side's leases are stale, its own cameras stopped
        Map<String, String> shown3 = new TreeMap<>();
        for (Object o : n3.get("/api/cameras").array()) shown3.put(((JsonObject) o).getString("id"), ((JsonObject) o).getString("owner"));
        System.out.printf("cluster: partition node 3's /api/cameras while alone: %s%n", shown3);
        assertEquals(CAMERAS, shown3.size(), "node 3 lists every camera while alone");
        assertTrue(shown3.values().stream().allMatch(java.util.Objects::isNull), () -> "node 3, alone, names owners: " + shown3);

        // the two sides never streamed one camera at once for longer than a lease
        overlap.stop();
        System.out.printf("cluster: partition overlap: node 3's last frame vs the new owner's first, in capture time: worst %d ms"
                        + " (negative: a gap), per camera %s; samples (every 100 ms) with both sides streaming a camera: %d of %d%n",
                Math.round(overlap.worst), overlap.perCamera, overlap.both, overlap.samples);
        assertTrue(overlap.worst < LEASE_MS, "node 3 and nodes 1/2 streamed a camera at once for " + overlap.worst + " ms of capture time");
        long partitionMs = System.currentTimeMillis() - cut;

        // the big side fenced nothing of its own: nodes 1 and 2 streamed their cameras throughout, same owner, same epoch
        long healed = System.currentTimeMillis();
        long longestSilence = 0;
        for (var e : majorityEpoch.entrySet()) {
            long previous = cut;
            for (Received r : at1) {
                if (!r.camera().equals(e.getKey()) || r.atMs() < cut || r.atMs() >= healed) continue;
                assertTrue(r.epoch() == e.getValue() && owners.get(e.getKey()).equals(r.node()), () -> e.getKey() + " of "
                        + named(owners.get(e.getKey())) + " changed hands during the partition: " + named(r) + "\n" + tails(n1, n2));
                longestSilence = Math.max(longestSilence, r.atMs() - previous);
                previous = r.atMs();
            }
            longestSilence = Math.max(longestSilence, healed - previous);
        }
        System.out.printf("cluster: partition nodes 1+2 kept their own %d cameras throughout, longest silence of one on node 1's client %d ms%n",
                majorityEpoch.size(), longestSilence);
        assertTrue(longestSilence < LEASE_MS, "a camera of nodes 1/2 was silent for " + longestSilence + " ms during the partition\n" + tails(n1, n2));

        // the heal: Hazelcast merges node 3 back (the smaller side), leases settle, cameras spread to node 3 again
        healed = System.currentTimeMillis();
        net.heal();
        long merged = -1;
        long ready3 = -1;
        end = healed + MERGE_LIMIT_MS;
        while (System.currentTimeMillis() < end && (merged < 0 || ready3 < 0)) {
            long now = System.currentTimeMillis();
            if (merged < 0 && nodes.stream().allMatch(n -> metric(n, "argus_cluster_members") == 3)) merged = now - healed;
            if (ready3 < 0 && readyStatus(n3) == 200) ready3 = now - healed;
            for (ClusterNode n : nodes) if (!n.alive()) fail(n.name + " exited after the heal\n" + n.tail());
            Pace.holdMillis(200, "the sampling period of the heal's timings");
        }
        System.out.printf("cluster: partition heal -> 3 members on every node after %d ms, node 3 ready after %d ms%n", merged, ready3);
        assertTrue(merged >= 0, "no merge within " + MERGE_LIMIT_MS + " ms of the heal\n" + tails(n1, n2, n3));
        assertTrue(ready3 >= 0, "node 3 not ready within " + MERGE_LIMIT_MS + " ms of the heal\n" + n3.tail());
        Map<String, String> after = awaitOwners(List.of(n1, n2, n3), 60_000);
        long settled = System.currentTimeMillis();
        System.out.printf("cluster: partition heal -> every camera owned once, 2 per node, the same on every node, after %d ms: %s%n",
                settled - healed, named(after));
        awaitSameNodes(List.of(n1, n2, n3), 15_000);

        // the event bus across the former split, both ways: every camera fresh on both clients from its owner
        await(() -> after.entrySet().stream().allMatch(e -> fresh(at1, e.getKey(), e.getValue(), settled)
                        && fresh(at3, e.getKey(), e.getValue(), settled)), 30_000,
                () -> "fresh detections of every camera from its owner on both clients after the merge (node 1's client: "
                        + missing(at1, after, settled) + " missing; node 3's: " + missing(at3, after, settled) + ")", n1, n2, n3);
        long crossing = 0;
        for (var e : after.entrySet()) {
            crossing = Math.max(crossing, firstFrom(at1, e.getKey(), e.getValue(), settled).atMs() - healed);
            crossing = Math.max(crossing, firstFrom(at3, e.getKey(), e.getValue(), settled).atMs() - healed);
        }
        System.out.printf("cluster: partition heal -> both clients receive every camera from its owner (node 3's on node 1, node 1's"
                + " and node 2's on node 3) %d ms after the heal%n", crossing);

        for (Thread t : threads) t.interrupt();
        checkNoOverlap(at1, "node 1's client");
        checkNoOverlap(at3, "node 3's client");
        System.out.printf("cluster: partition lasted %d ms; whole test %d ms, %d + %d messages received%n", partitionMs,
                System.currentTimeMillis() - t0, at1.size(), at3.size());
    }

    private ClusterNode startNode(int i, JsonArray cameras) throws Exception {
        JsonObject config = TestConfig.light();
        String host = net.address(i);
        // on a non-loopback address the API needs a token (http/AccessToken): set one, as an operator would
        config.put("http", new JsonObject().put("host", host).put("port", HTTP_PORT).put("token", token));
        config.put("cameras", cameras.copy());
        config.put("snapshots", new JsonObject().put("fps", 0));
        JsonArray members = new JsonArray();
        for (int m = 1; m <= 3; m++) members.add(net.address(m) + ":" + HAZELCAST_PORT);
        config.put("cluster", new JsonObject().put("enabled", true).put("name", "argus-test-" + net.prefix)
                .put("host", host).put("port", HAZELCAST_PORT).put("members", members)
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", MAX_NO_HEARTBEAT_MS).put("minSize", 2)
                .put("leaseMs", LEASE_MS).put("renewIntervalMs", 300).put("secret", TestCluster.SECRET));
        return ClusterNode.start("node" + i, config, host, HTTP_PORT, HAZELCAST_PORT, dir, client, net.exec(i), token);
    }

    private void connect(ClusterNode n, List<Received> into) throws Exception {
        WsClient ws = WsClient.connect(client, n.httpHost, n.httpPort, "/ws?includeEmpty=true", token, 0, MultiMap.caseInsensitiveMultiMap());
        sockets.add(ws);
        Thread t = ClientRecord.collect(ws, into, "partition-test-ws-" + n.name);
        threads.add(t);
    }

    /**
     * Sampled every 100 ms while the partition lasts, per camera of node 3: node 3's last frame (its client) against the
     * new owner's first (node 1's client), in capture time; and whether both sides were streaming it at that moment
     * (each side's latest message less than a second old, their capture times overlapping).
     */
    private final class Overlap {
        final Set<String> cameras;
        final String node3;
        final Map<String, Long> oldEpoch;
        final Map<String, Long> perCamera = new TreeMap<>();
        volatile double worst = Double.NEGATIVE_INFINITY;
        volatile int samples;
        volatile int both;
        private Thread sampler;

        Overlap(Set<String> cameras, String node3, Map<String, Long> oldEpoch) {
            this.cameras = cameras;
            this.node3 = node3;
            this.oldEpoch = oldEpoch;
        }

        void start(long cut) {
            sampler = new Thread(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        sample(cut);
                        Pace.holdMillis(100, "the overlap's sampling period");
                    }
                } catch (InterruptedException ignored) {
                    // done
                }
            }, "partition-test-overlap");
            sampler.setDaemon(true);
            sampler.start();
            threads.add(sampler);
        }

        void stop() throws InterruptedException {
            sampler.interrupt();
            sampler.join(5000);
            sample(-1); // once more, on everything received
        }

        private void sample(long cut) {
            long now = System.currentTimeMillis();
            samples++;
            boolean doubled = false;
            for (String c : cameras) {
                double lastOld = -Double.MAX_VALUE;
                long lastOldAt = 0;
                for (Received r : at3) {
                    if (r.camera().equals(c) && node3.equals(r.node()) && r.epoch() == oldEpoch.get(c) && r.captureTime() > lastOld) {
                        lastOld = r.captureTime();
                        lastOldAt = r.atMs();
                    }
                }
                double firstNew = Double.MAX_VALUE;
                long lastNewAt = 0;
                for (Received r : at1) {
                    if (r.camera().equals(c) && !node3.equals(r.node()) && r.epoch() > oldEpoch.get(c)) {
                        firstNew = Math.min(firstNew, r.captureTime());
                        lastNewAt = Math.max(lastNewAt, r.atMs());
                    }
                }
                boolean overlapping = false;
                if (lastOld > -Double.MAX_VALUE && firstNew < Double.MAX_VALUE) {
                    long o = Math.round(lastOld - firstNew);
                    perCamera.put(c, o);
                    worst = Math.max(worst, o);
                    overlapping = o > 0;
                }
                // streamed by both sides at this sample: each side's latest message within a second, in capture time overlapping
                if (cut >= 0 && overlapping && now - lastOldAt < 1000 && now - lastNewAt < 1000) doubled = true;
            }
            if (doubled) both++;
        }
    }

    /** Waits until every node lists every camera with the same live owner, each of the three owning two. */
    private Map<String, String> awaitOwners(List<ClusterNode> from, long timeoutMs) throws Exception {
        String[] lastSeen = {""};
        List<Map<String, String>> result = new ArrayList<>();
        Waits.waitFor(() -> {
            String last = "";
            Map<String, String> agreed = null;
            boolean ok = true;
            for (ClusterNode n : from) {
                Map<String, String> owners = new TreeMap<>();
                try {
                    for (Object o : n.get("/api/cameras").array()) {
                        JsonObject c = (JsonObject) o;
                        owners.put(c.getString("id"), c.getString("owner"));
                    }
                } catch (Exception e) {
                    ok = false;
                    last = n.name + ": " + e;
                    continue;
                }
                last = n.name + ": " + owners;
                if (owners.size() != CAMERAS || owners.containsValue(null) || (agreed != null && !agreed.equals(owners))) ok = false;
                agreed = owners;
            }
            if (ok) {
                Map<String, Integer> counts = new HashMap<>();
                agreed.values().forEach(v -> counts.merge(v, 1, Integer::sum));
                Set<String> ids = new java.util.HashSet<>();
                for (ClusterNode n : from) ids.add(n.id());
                if (counts.keySet().equals(ids) && counts.values().stream().allMatch(c -> c == 2)) {
                    result.add(agreed);
                    return true;
                }
                last += " counts " + counts;
            }
            lastSeen[0] = last;
            return false;
        }, timeoutMs, 250, () -> "cameras owned once each, 2 per node; last: " + lastSeen[0] + "\n"
                + tails(from.toArray(new ClusterNode[0])));
        return result.get(0);
    }

    /** Waits until {@code /api/nodes} is the same on every node: the three members, their addresses, their cameras. */
    private void awaitSameNodes(List<ClusterNode> from, long timeoutMs) throws Exception {
        String[] last = {""};
        Waits.waitFor(() -> {
            Set<String> views = new java.util.HashSet<>();
            Set<Integer> sizes = new java.util.HashSet<>();
            boolean complete = true;
            StringBuilder all = new StringBuilder();
            for (ClusterNode n : from) {
                Map<String, String> view = new TreeMap<>();
                try {
                    for (Object o : n.get("/api/nodes").array()) {
                        JsonObject e = (JsonObject) o;
                        view.put(e.getString("id"), e.getString("http") + " " + e.getJsonArray("cameras"));
                        if (e.getString("http") == null || e.getString("cluster") == null) complete = false;
                    }
                } catch (Exception e) {
                    complete = false;
                }
                views.add(view.toString());
                sizes.add(view.size());
                all.append(n.name).append(": ").append(view).append("; ");
            }
            last[0] = all.toString();
            if (complete && views.size() == 1 && sizes.equals(Set.of(from.size()))) {
                System.out.printf("cluster: partition heal -> /api/nodes the same on every node: %s%n", named(views.iterator().next()));
                return true;
            }
            return false;
        }, timeoutMs, 250, () -> "/api/nodes the same on every node (with every member's address): " + last[0]);
    }

    /** {@code o}'s text with node ids replaced by node names. */
    private String named(Object o) {
        String s = String.valueOf(o);
        for (var e : names.entrySet()) s = s.replace(e.getKey(), e.getValue());
        return s;
    }

    private static Set<String> camerasOf(Map<String, String> owners, String node) {
        Set<String> out = new TreeSet<>();
        owners.forEach((c, o) -> {
            if (node.equals(o)) out.add(c);
        });
        return out;
    }

    private static boolean seen(List<Received> in, String node, long sinceMs) {
        return in.stream().anyMatch(r -> node.equals(r.node()) && r.atMs() >= sinceMs);
    }

    private static boolean fromOwner(List<Received> in, String camera, String node) {
        return in.stream().anyMatch(r -> r.camera().equals(camera) && node.equals(r.node()));
    }

    private static long lastEpoch(List<Received> in, String camera, String node) {
        long e = -1;
        for (Received r : in) if (r.camera().equals(camera) && node.equals(r.node())) e = r.epoch();
        assertNotEquals(-1, e, "no detection of " + camera + " from its owner yet");
        return e;
    }

    private static Received firstAfter(List<Received> in, String camera, long afterMs, String notFrom) {
        for (Received r : in) if (r.camera().equals(camera) && r.atMs() >= afterMs && !notFrom.equals(r.node())) return r;
        return null;
    }

    private static Received firstFrom(List<Received> in, String camera, String node, long afterMs) {
        for (Received r : in) if (r.camera().equals(camera) && r.atMs() >= afterMs && node.equals(r.node())) return r;
        return null;
    }

    private static boolean fresh(List<Received> in, String camera, String node, long afterMs) {
        return firstFrom(in, camera, node, afterMs) != null;
    }

    private static String missing(List<Received> in, Map<String, String> owners, long afterMs) {
        List<String> out = new ArrayList<>();
        owners.forEach((c, o) -> {
            if (!fresh(in, c, o, afterMs)) out.add(c);
        });
        return out.toString();
    }

    private static Received lastFrom(List<Received> in, String node) {
        Received last = null;
        for (Received r : in) if (node.equals(r.node()) && (last == null || r.atMs() >= last.atMs())) last = r;
        return last;
    }

    /** A gauge from the node's {@code /metrics}; -1 when it cannot be read. */
    private static long metric(ClusterNode n, String name) {
        try {
            for (String line : n.get("/metrics").body().split("\n")) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    return Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
                }
            }
        } catch (Exception e) {
            // not reachable this time
        }
        return -1;
    }

    private static int readyStatus(ClusterNode n) {
        try {
            return n.get("/ready").status();
        } catch (Exception e) {
            return -1;
        }
    }

    /** After the gateway's epoch filter, every camera received, each as {@link ClientRecord#checkNoOverlap} checks. */
    private void checkNoOverlap(List<Received> received, String who) {
        Map<String, Map<Long, String>> epochs = ClientRecord.checkNoOverlap(received, who);
        assertEquals(CAMERAS, epochs.size(), who + " received every camera");
        epochs.forEach((camera, nodeOf) -> System.out.println("cluster: partition " + who + ": " + camera + " epochs "
                + named(nodeOf) + ", " + ClientRecord.count(received, camera) + " messages"));
    }

    private void await(BooleanSupplier condition, long timeoutMs, String what, ClusterNode... show) throws Exception {
        await(condition, timeoutMs, () -> what, show);
    }

    private void await(BooleanSupplier condition, long timeoutMs, Supplier<String> what, ClusterNode... show) throws Exception {
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
