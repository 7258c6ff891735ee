package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tracking in a cluster (docs/tracking.md): two Argus processes, one camera (the demo model on the shapes sample) with
 * a zone over the whole picture, so every object it tracks enters it. Events of the camera reach a WebSocket client on
 * the node that does not run it, which also serves their best snapshots (kept by the camera's node); the zone's entry
 * total, kept in the cluster, survives kill -9 of the camera's node: the survivor goes on from it (never below) while
 * the camera's tracks start afresh there (ids from 1 again).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 140)
class ClusterEventsTest {
    final Vertx client = Vertx.vertx();
    final List<ClusterNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ClusterNode n : nodes) n.close();
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void countersSurviveTheOwnersDeathAndEventsReachEveryNode() throws Exception {
        Path dir = TestMedia.dir().resolve("cluster-events-" + System.currentTimeMillis());
        Files.createDirectories(dir);
        Path sample = SampleVideo.ensure(dir.resolve("shared-cache"));
        int[] hz = {ClusterNode.freePort(), ClusterNode.freePort()};
        List<String> members = List.of("127.0.0.1:" + hz[0], "127.0.0.1:" + hz[1]);
        JsonObject camera = TestConfig.camera("shapes", "sample:").put("zones", new JsonArray().add(new JsonObject()
                .put("id", "all").put("normalized", true)
                .put("polygon", new JsonArray("[[0,0],[1,0],[1,1],[0,1]]"))));
        for (int i = 0; i < 2; i++) nodes.add(startNode(i + 1, hz[i], members, camera, dir, sample));
        for (ClusterNode n : nodes) await(() -> n.ready(), 150_000, n.name + " ready", n);

        await(() -> ownerOf(nodes.get(0)) != null, 30_000, "an owner for the camera", nodes.get(0));
        String ownerId = ownerOf(nodes.get(0));
        ClusterNode owner = nodes.get(0).id().equals(ownerId) ? nodes.get(0) : nodes.get(1);
        ClusterNode other = owner == nodes.get(0) ? nodes.get(1) : nodes.get(0);
        System.out.printf("cluster events: camera on %s, client on %s%n", owner.name, other.name);

        // the other node's WebSocket client gets the camera's events (and detections, for the track ids)
        WsClient ws = WsClient.connect(client, other.httpPort, "/ws?events=true&includeEmpty=true", null, 0);
        ConcurrentLinkedQueue<JsonObject> seen = new ConcurrentLinkedQueue<>();
        Thread drain = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    JsonObject m = ws.messages.poll(1, TimeUnit.SECONDS);
                    if (m != null) seen.add(m.put("receivedAt", System.currentTimeMillis()));
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        await(() -> entered(other) >= 5, 90_000, "5 entries into the zone, counted in the cluster", owner, other);
        await(() -> seen.stream().anyMatch(m -> "event".equals(m.getString("type")) && "shapes".equals(m.getString("cameraId"))
                && "new".equals(m.getString("kind"))), 30_000, "a new event of the other node's camera at this node's client", owner, other);
        // an event's best snapshot is kept by the camera's node; the other node serves it all the same
        await(() -> seen.stream().filter(m -> "event".equals(m.getString("type"))).map(m -> m.getString("id")).distinct().limit(20)
                .anyMatch(id -> snapshotStatus(other, id) == 200), 30_000, "an event's snapshot from the node without the camera",
                owner, other);
        // its history too: an event lists the zone once the object has been inside for the zone's inertia, so the
        // first "new" events seen may not match zone=all yet
        await(() -> eventsInZone(other) > 0, 30_000, "an event of the zone in /api/events on the node without the camera", owner, other);

        long before = entered(other);
        long maxIdBefore = maxTrackId(seen, ownerId, 0);
        long killedAt = System.currentTimeMillis();
        owner.kill();
        System.out.printf("cluster events: killed %s at %d entries, track ids up to %d%n", owner.name, before, maxIdBefore);

        // the survivor runs the camera and counts on from the kept total, never below it
        long lowest = Long.MAX_VALUE;
        long end = System.currentTimeMillis() + 90_000;
        long now = before;
        while (System.currentTimeMillis() < end && now < before + 3) {
            now = entered(other);
            lowest = Math.min(lowest, now);
            Pace.holdMillis(250, "the sampling period of the survivor's total (the lowest seen is judged)");
        }
        System.out.printf("cluster events: after the kill the total went from %d to %d (lowest seen %d) in %d ms%n",
                before, now, lowest, System.currentTimeMillis() - killedAt);
        assertTrue(now >= before + 3, "the survivor counts on: " + before + " before, " + now + " after\n" + other.tail());
        assertTrue(lowest >= before, "the total fell to " + lowest + " below the " + before + " kept before the kill");
        assertEquals(other.id(), ownerOf(other), "the survivor owns the camera");

        // its tracks started afresh: ids from 1 again, below those of the dead owner. The zone total is read over HTTP
        // and can run ahead of the WebSocket stream (the first confirmed tracks enter at once), so wait for the stream.
        String survivor = other.id();
        await(() -> minTrackId(seen, survivor) != Long.MAX_VALUE, 30_000, "tracked detections from the survivor at its client", other);
        long minIdAfter = minTrackId(seen, survivor);
        assertTrue(minIdAfter < maxIdBefore, "track ids restart on the new owner: " + minIdAfter + " after, up to " + maxIdBefore + " before");
        drain.interrupt();
        ws.close();
    }

    private static long entered(ClusterNode n) {
        try {
            JsonObject counts = n.get("/api/counts?camera=shapes").json();
            long total = 0;
            for (Object o : counts.getJsonArray("zones", new JsonArray())) total += ((JsonObject) o).getLong("entered", 0L);
            return total;
        } catch (Exception e) {
            return -1;
        }
    }

    private static int snapshotStatus(ClusterNode n, String event) {
        try {
            return n.get("/api/events/" + event + "/snapshot.jpg").status();
        } catch (Exception e) {
            return -1;
        }
    }

    private static int eventsInZone(ClusterNode n) {
        try {
            return n.get("/api/events?camera=shapes&zone=all&limit=5").json().getInteger("total");
        } catch (Exception e) {
            return -1;
        }
    }

    /** The track ids in the detection messages of {@code node} seen so far. */
    private static java.util.stream.LongStream trackIds(Iterable<JsonObject> messages, String node) {
        java.util.stream.LongStream.Builder ids = java.util.stream.LongStream.builder();
        for (JsonObject m : messages) {
            if (!"detections".equals(m.getString("type")) || !node.equals(m.getString("node"))) continue;
            for (Object o : m.getJsonArray("detections")) {
                JsonObject t = ((JsonObject) o).getJsonObject("track");
                if (t != null) ids.add(t.getLong("id"));
            }
        }
        return ids.build();
    }

    private static long maxTrackId(Iterable<JsonObject> messages, String node, long atLeast) {
        return Math.max(atLeast, trackIds(messages, node).max().orElse(atLeast));
    }

    private static long minTrackId(Iterable<JsonObject> messages, String node) {
        return trackIds(messages, node).min().orElse(Long.MAX_VALUE);
    }

    private static String ownerOf(ClusterNode n) {
        try {
            return n.get("/api/cameras/shapes").json().getString("owner");
        } catch (Exception e) {
            return null;
        }
    }

    private ClusterNode startNode(int i, int hazelcastPort, List<String> members, JsonObject camera, Path dir, Path sample)
            throws Exception {
        JsonObject config = TestConfig.demo();
        int http = ClusterNode.freePort();
        config.getJsonObject("http").put("port", http);
        Path cache = dir.resolve("cache-" + i);
        Files.createDirectories(cache);
        Files.copy(sample, cache.resolve(sample.getFileName()));   // the sample video, made once for both
        config.put("cacheDir", cache.toString());
        config.put("cameras", new JsonArray().add(camera.copy())).put("snapshots", new JsonObject().put("fps", 2).put("maxWidth", 160));
        config.put("cluster", new JsonObject().put("enabled", true).put("name", "argus-events-" + dir.getFileName())
                .put("host", "127.0.0.1").put("port", hazelcastPort).put("members", new JsonArray(members))
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", 5000).put("minSize", 1)
                .put("leaseMs", 10_000).put("renewIntervalMs", 300).put("secret", TestCluster.SECRET));
        return ClusterNode.start("node" + i, config, http, hazelcastPort, dir, client);
    }

    private void await(BooleanSupplier condition, long timeoutMs, String what, ClusterNode... show) throws Exception {
        Waits.waitFor(() -> {
            if (condition.getAsBoolean()) return true;
            for (ClusterNode n : show) if (!n.alive() && n != null) fail(n.name + " exited while waiting for " + what + "\n" + n.tail());
            return false;
        }, timeoutMs, 200, () -> {
            StringBuilder tails = new StringBuilder(what);
            for (ClusterNode n : show) tails.append('\n').append(n.tail());
            return tails.toString();
        });
    }
}
