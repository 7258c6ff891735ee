package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * One clustered node in this JVM: it leases and runs its camera, stamps node and epoch on detections, and its
 * event-bus registrations show what crosses the cluster: detections do, video frames and local control never do.
 */
@Budget(seconds = 15)
class SingleNodeClusterTest {
    @Test
    void framesNeverGetAClusteredConsumerWhileDetectionsDo() throws Exception {
        int port = TestMedia.freePort();
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("cam", TestMedia.h264(160, 120, 4, 10).toString()));
        json.put("cluster", new JsonObject().put("enabled", true).put("name", "argus-single-" + port).put("port", port)
                .put("members", new JsonArray().add("127.0.0.1:" + port)).put("renewIntervalMs", 200));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            String node = app.app.nodeId();
            assertNotNull(node);
            try (WsClient ws = app.ws("/ws?includeEmpty=true")) {
                JsonObject m = ws.await(x -> "detections".equals(x.getString("type")), Duration.ofSeconds(30), "a detection message");
                assertEquals(node, m.getString("node"), m.encode());
                assertEquals(1L, m.getLong("epoch"), "the first claim of the camera");
            }
            JsonObject cam = app.camera("cam");
            assertEquals(node, cam.getString("owner"), cam.encode());
            assertTrue(cam.containsKey("framesDecoded"), "the owner's live status is merged: " + cam.encode());
            assertEquals("127.0.0.1:" + app.port(), cam.getString("ownerHttp"), "where the owner serves snapshots");
            assertEquals("127.0.0.1:" + app.port(), app.get("/api/cameras").array().getJsonObject(0).getString("ownerHttp"));
            var paused = app.call(io.vertx.core.http.HttpMethod.POST, "/api/cameras/cam/pause", null);
            assertEquals(200, paused.status(), paused.body());
            assertTrue(paused.json().getBoolean("paused"), "pause is relayed to the owner: " + paused.body());
            assertEquals(200, app.call(io.vertx.core.http.HttpMethod.POST, "/api/cameras/cam/resume", null).status());
            assertEquals(404, app.get("/api/cameras/nosuch").status());
            JsonArray nodes = app.get("/api/nodes").array();
            assertEquals(1, nodes.size(), nodes.encode());
            assertEquals(new JsonArray().add("cam"), nodes.getJsonObject(0).getJsonArray("cameras"));

            String metrics = app.get("/metrics").body();
            // every series carries the node's cluster address (several nodes feed one Prometheus)
            assertTrue(java.util.regex.Pattern.compile("(?m)^argus_cluster_members\\{node=\"127\\.0\\.0\\.1:\\d+\"} 1\\.0$").matcher(metrics).find(),
                    "members gauge, labelled with the node: " + metrics.lines().filter(l -> l.startsWith("argus_cluster")).toList());
            assertTrue(java.util.regex.Pattern.compile("(?m)^argus_cluster_cameras_held\\{node=\"127\\.0\\.0\\.1:\\d+\"} 1\\.0$").matcher(metrics).find(),
                    "held leases gauge");

            HazelcastClusterManager manager = (HazelcastClusterManager) ((VertxInternal) app.app.vertx()).clusterManager();
            Set<String> clustered = new TreeSet<>();
            for (Object k : manager.getHazelcastInstance().getMultiMap("__vertx.subs").keySet()) clustered.add(String.valueOf(k));
            assertTrue(clustered.contains("argus.detections.cam"), "detections reach every node's gateway: " + clustered);
            assertTrue(clustered.contains("argus.control.node." + node + ".cameras"), "the owner relay: " + clustered);
            assertFalse(clustered.stream().anyMatch(a -> a.startsWith("argus.frames.")), "frames stay on their node: " + clustered);
            assertFalse(clustered.contains("argus.control.cameras"), "camera control stays on its node: " + clustered);
            assertFalse(clustered.contains("argus.cameras.events"), "camera events stay on their node: " + clustered);
            System.out.println("cluster: clustered addresses " + clustered);
        }
    }
}
