package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A model version promoted on one node is served by every node: two Argus processes with online training on, each
 * running a camera; an operator uploads new weights to node 1 ({@code POST /api/models/tiny/versions}); node 2
 * fetches them by their hash and swaps them in. Measured at a WebSocket client on node 1: from the promotion to the
 * first message of each node's camera that carries the new version. Then the trainer singleton: one node fine-tunes
 * the model, the other refuses a run naming it, and takes it over when that node is killed. Also: /metrics labels
 * each series with its node, and a snapshot of one node's camera is served by the other.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 190)
class ClusterModelVersionTest {
    static final long SERVED_EVERYWHERE_LIMIT_MS = 60_000;

    final Vertx client = Vertx.vertx();
    final List<ClusterNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ClusterNode n : nodes) n.close();
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPromotedVersionIsServedByEveryNode() throws Exception {
        Path dir = TestMedia.dir().resolve("cluster-models-" + System.currentTimeMillis());
        Files.createDirectories(dir);
        Path video = TestMedia.h264(160, 120, 4, 10);
        int[] hz = {ClusterNode.freePort(), ClusterNode.freePort()};
        List<String> members = List.of("127.0.0.1:" + hz[0], "127.0.0.1:" + hz[1]);
        JsonArray cameras = new JsonArray();
        for (int i = 1; i <= 2; i++) cameras.add(TestConfig.camera("cam" + i, video.toString()).put("loop", true).put("realtime", true));
        for (int i = 0; i < 2; i++) nodes.add(startNode(i + 1, hz[i], members, cameras, dir));
        for (ClusterNode n : nodes) await(n::ready, 150_000, n.name + " ready", n);
        ClusterNode n1 = nodes.get(0);
        Set<String> ids = Set.of(n1.id(), nodes.get(1).id());
        // /metrics per node, each series labelled with the node's cluster address
        String metrics = n1.get("/metrics").body();
        assertTrue(metrics.contains("node=\"127.0.0.1:" + hz[0] + "\""), "node label in /metrics: "
                + metrics.lines().filter(l -> l.startsWith("argus_cluster")).toList());
        WsClient ws = WsClient.connect(client, n1.httpPort, "/ws?includeEmpty=true", null, 0);
        // both nodes publish (one camera each), with the configured weights' version
        Set<String> publishing = new HashSet<>();
        String base = null;
        long end = System.currentTimeMillis() + 60_000;
        while (publishing.size() < 2 && System.currentTimeMillis() < end) {
            JsonObject m = ws.messages.poll(200, TimeUnit.MILLISECONDS);
            if (m == null || !"detections".equals(m.getString("type"))) continue;
            publishing.add(m.getString("node"));
            base = m.getJsonObject("model").getString("version");
        }
        assertEquals(ids, publishing, "both nodes publish before the promotion\n" + n1.tail() + "\n" + nodes.get(1).tail());

        // a snapshot of node 2's camera, asked of node 1: node 1 asks node 2 over the event bus (OwnerSnapshots)
        String id2 = nodes.get(1).id();
        String cameraOf2 = null;
        for (Object o : n1.get("/api/cameras").array()) {
            if (id2.equals(((JsonObject) o).getString("owner"))) cameraOf2 = ((JsonObject) o).getString("id");
        }
        assertTrue(cameraOf2 != null, "node 2 owns a camera");
        ClusterNode.Response[] snapped = {null};
        String snapshotOf2 = "/api/cameras/" + cameraOf2 + "/snapshot.jpg";
        Waits.waitFor(() -> (snapped[0] = n1.get(snapshotOf2)).status() == 200, 15_000, 250,
                () -> "node 1 to serve a snapshot of node 2's camera: " + (snapped[0] == null ? "no answer" : snapped[0].body()));
        ClusterNode.Response snap = snapped[0];
        assertTrue(snap.body().length() > 100, "a JPEG");
        assertEquals(404, n1.get("/api/cameras/nosuchcamera/snapshot.jpg").status());

        // new weights for the same network (another seed), promoted on node 1 by an operator
        NetworkSpec spec = NetworkSpec.load(TestMedia.cfg("yolov4-tiny.cfg"), 160, 160);
        Path weights = dir.resolve("better.weights");
        WeightsFile.write(weights, spec, WeightsInit.darknet(spec, 7));
        String version = LoadedModel.fileVersion(weights);
        assertTrue(!version.equals(base), "a new version");
        long promotedAt = System.currentTimeMillis();
        ClusterNode.Response r = n1.upload("/api/models/tiny/versions", Files.readAllBytes(weights));
        assertEquals(200, r.status(), r.body());
        long answeredAt = System.currentTimeMillis();

        // every node's camera comes with the new version
        Set<String> serving = new HashSet<>();
        long[] firstAt = new long[2];
        end = System.currentTimeMillis() + SERVED_EVERYWHERE_LIMIT_MS;
        while (serving.size() < 2 && System.currentTimeMillis() < end) {
            JsonObject m = ws.messages.poll(200, TimeUnit.MILLISECONDS);
            if (m == null || !"detections".equals(m.getString("type"))) continue;
            if (version.equals(m.getJsonObject("model").getString("version")) && serving.add(m.getString("node"))) {
                firstAt[serving.size() - 1] = System.currentTimeMillis() - promotedAt;
            }
        }
        if (serving.size() < 2) fail("version " + version + " served by " + serving + " of " + ids + " after "
                + SERVED_EVERYWHERE_LIMIT_MS + " ms\n" + n1.tail() + "\n" + nodes.get(1).tail());
        System.out.printf("cluster: promoted version %s on node 1 (swap answered after %d ms): first message with it from"
                + " one node after %d ms, from both after %d ms%n", version, answeredAt - promotedAt, firstAt[0], firstAt[1]);
        // node 2 keeps it for rollbacks, marked as adopted from node 1
        JsonObject versions = nodes.get(1).get("/api/models/tiny/versions").json();
        assertEquals(version, versions.getString("active"), versions.encodePrettily());
        ws.close();

        // a node that joins after the promotion catches up: it serves the version promoted last
        long joinAt = System.currentTimeMillis();
        ClusterNode n3 = startNode(3, ClusterNode.freePort(), members, cameras, dir);
        nodes.add(n3);
        await(n3::ready, 150_000, "node 3 ready", n3);
        await(() -> {
            try {
                return version.equals(n3.get("/api/models/tiny/versions").json().getString("active"));
            } catch (Exception e) {
                return false;
            }
        }, 60_000, "node 3 (joined after the promotion) serving " + version, n3);
        System.out.printf("cluster: a node started after the promotion serves it %d ms after its start%n", System.currentTimeMillis() - joinAt);
        nodes.remove(n3);
        n3.close(); // what follows is about the first two nodes

        // one node fine-tunes the model (the trainer singleton); the other refuses a run, naming it
        ClusterNode[] trainerFound = {null};
        Waits.waitFor(() -> {
            for (ClusterNode n : nodes) {
                if (n.get("/api/training").json().getBoolean("trainerHere", false)) trainerFound[0] = n;
            }
            return trainerFound[0] != null;
        }, 15_000, 200, () -> "a node that fine-tunes the model\n" + n1.tail());
        ClusterNode trainer = trainerFound[0];
        ClusterNode other = nodes.get(1 - nodes.indexOf(trainer));
        assertTrue(!other.get("/api/training").json().getBoolean("trainerHere"), "the other node does not fine-tune too");
        ClusterNode.Response refused = other.call(HttpMethod.POST, "/api/training/runs", null);
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.body().contains(trainer.id()), "names the trainer node: " + refused.body());
        // the trainer node's camera, paused through the other node, stays paused when it moves (CameraStates)
        String trainerId = trainer.id();
        String pausedCamera = null;
        for (Object o : other.get("/api/cameras").array()) {
            if (trainerId.equals(((JsonObject) o).getString("owner"))) pausedCamera = ((JsonObject) o).getString("id");
        }
        assertTrue(pausedCamera != null, "the trainer node owns a camera");
        ClusterNode.Response paused = other.call(HttpMethod.POST, "/api/cameras/" + pausedCamera + "/pause", null);
        assertEquals(200, paused.status(), paused.body());
        // kill -9 of the trainer node: the other takes the trainer over
        long killedAt = System.currentTimeMillis();
        trainer.kill();
        ClusterNode survivor = other;
        await(() -> {
            try {
                return survivor.get("/api/training").json().getBoolean("trainerHere", false);
            } catch (Exception e) {
                return false;
            }
        }, 30_000, "the survivor taking the trainer over", survivor);
        System.out.printf("cluster: trainer singleton: node killed -> the survivor fine-tunes after %d ms%n", System.currentTimeMillis() - killedAt);
        String camera = pausedCamera;
        String survivorId = survivor.id();
        await(() -> {
            try {
                JsonObject c = survivor.get("/api/cameras/" + camera).json();
                return survivorId.equals(c.getString("owner")) && c.getBoolean("paused", false);
            } catch (Exception e) {
                return false;
            }
        }, 30_000, "the paused camera running paused on the survivor", survivor);
        System.out.printf("cluster: a paused camera moved to the survivor and is paused there %d ms after the kill%n",
                System.currentTimeMillis() - killedAt);
    }

    private ClusterNode startNode(int i, int hazelcastPort, List<String> members, JsonArray cameras, Path dir) throws Exception {
        JsonObject config = TestConfig.base();
        int http = ClusterNode.freePort();
        config.getJsonObject("http").put("port", http);
        config.put("cameras", cameras.copy()).put("snapshots", new JsonObject().put("fps", 2).put("maxWidth", 160));
        config.put("training", new JsonObject().put("enabled", true).put("model", "tiny")
                .put("dataDir", dir.resolve("data-" + i).toString()));
        List<String> all = new ArrayList<>(members);
        if (!all.contains("127.0.0.1:" + hazelcastPort)) all.add("127.0.0.1:" + hazelcastPort);
        config.put("cluster", new JsonObject().put("enabled", true).put("name", "argus-models-" + dir.getFileName())
                .put("host", "127.0.0.1").put("port", hazelcastPort).put("members", new JsonArray(all))
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", 5000).put("minSize", 1) // a survivor alone goes on
                .put("leaseMs", 10_000).put("renewIntervalMs", 300).put("secret", TestCluster.SECRET));
        return ClusterNode.start("node" + i, config, http, hazelcastPort, dir, client);
    }

    private void await(java.util.function.BooleanSupplier condition, long timeoutMs, String what, ClusterNode n) throws Exception {
        Waits.waitFor(() -> {
            if (condition.getAsBoolean()) return true;
            if (!n.alive()) fail(n.name + " exited while waiting for " + what + "\n" + n.tail());
            return false;
        }, timeoutMs, 200, () -> what + "\n" + n.tail());
    }
}
