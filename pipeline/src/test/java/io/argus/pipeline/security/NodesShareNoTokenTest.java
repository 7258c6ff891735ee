package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Nodes of a cluster ask each other for snapshots and for a promoted version's weights over the clustered event bus,
 * addressed by node id, never over HTTP with the API token. Two clustered nodes in this JVM with DIFFERENT API tokens
 * (so no token could have been used between them: a node passing requests on over HTTP with its own token would get
 * 401 from the other, as the weights fetch did before) and one camera. The node that does not run the camera serves
 * its snapshots (latest and by frame, marked with the owner's node id) and the owner's answer for an event's snapshot;
 * a version promoted on the owner is served by the other node. (A rogue member that declares its own address for a
 * node: ClusterAdmitsOnlyItsOwnTest.ForgedLeaseTest.) The answering node checks every id of a request: a path for a
 * camera, an event, a model or a version, or a bad offset, gets 400 naming the field.
 *
 * <p>Budget: 45 s (both nodes start in parallel; most of it is their start and the weights' swap on a 2-core machine).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 45)
class NodesShareNoTokenTest {
    static final long WAIT_MS = 30_000;

    static RunningApp owner;
    static RunningApp other;
    static WebClient web;

    @BeforeAll
    static void startTwoNodes() throws Exception {
        Path dir = TestMedia.dir().resolve("nodes-no-token-" + System.currentTimeMillis());
        Files.createDirectories(dir);
        int[] hazelcast = {TestMedia.freePort(), TestMedia.freePort()};
        String video = TestMedia.h264(160, 120, 4, 10).toString();
        CompletableFuture<RunningApp> a = CompletableFuture.supplyAsync(() -> start(node(1, "token-of-node-one", hazelcast, video, dir)));
        CompletableFuture<RunningApp> b = CompletableFuture.supplyAsync(() -> start(node(2, "token-of-node-two", hazelcast, video, dir)));
        RunningApp one = a.get(120, TimeUnit.SECONDS);
        RunningApp two = b.get(120, TimeUnit.SECONDS);
        assertNotEquals(one.token(), two.token(), "the nodes have different API tokens");
        String[] found = new String[1];
        Waits.waitFor(() -> (found[0] = ownerOfCam(one)) != null, WAIT_MS, "an owner for camera cam");
        owner = found[0].equals(one.app.nodeId()) ? one : two;
        other = owner == one ? two : one;
        web = WebClient.create(other.client);
    }

    @AfterAll
    static void stop() throws Exception {
        if (web != null) web.close();
        for (RunningApp app : new RunningApp[]{other, owner}) if (app != null) app.close();
    }

    @Test
    void anotherNodesSnapshotsComeOverTheEventBusWithoutTheToken() throws Exception {
        String ownerId = owner.app.nodeId();
        // the camera's latest snapshot, asked of the node that does not run it (a 404 while none is taken yet)
        AtomicReference<HttpResponse<Buffer>> latest = new AtomicReference<>();
        Waits.waitFor(() -> {
            latest.set(get("/api/cameras/cam/snapshot.jpg"));
            return latest.get().statusCode() != 404;
        }, WAIT_MS, "a snapshot of the other node's camera (404 meanwhile)");
        HttpResponse<Buffer> snapshot = latest.get();
        assertEquals(200, snapshot.statusCode(), "the owner's snapshot through the other node: " + snapshot.bodyAsString());
        assertEquals("image/jpeg", snapshot.getHeader("content-type"));
        assertEquals(ownerId, snapshot.getHeader("x-argus-snapshot-from"), "names the owner node");
        Buffer jpeg = snapshot.body();
        assertTrue(jpeg.length() > 100 && (jpeg.getByte(0) & 0xff) == 0xff && (jpeg.getByte(1) & 0xff) == 0xd8, "a JPEG");
        String frame = snapshot.getHeader("x-argus-frame");
        assertNotNull(frame, "x-argus-frame");
        HttpResponse<Buffer> byFrame = get("/api/cameras/cam/snapshots/" + frame + ".jpg");
        assertEquals(200, byFrame.statusCode(), "a snapshot by its frame number: " + byFrame.bodyAsString());
        assertEquals(frame, byFrame.getHeader("x-argus-frame"));
        assertEquals(jpeg, byFrame.body(), "the same picture");
        // an event's best snapshot: the other node's events verticle sends it to the owner, which answers for it
        HttpResponse<Buffer> event = get("/api/events/cam-999999-1/snapshot.jpg");
        assertEquals(404, event.statusCode(), event.bodyAsString());
        assertEquals(ownerId, event.getHeader("x-argus-snapshot-from"), "the owner answered for it");
        assertTrue(event.bodyAsString().contains("cam-999999-1"), "the owner's reason names the event: " + event.bodyAsString());
        assertEquals(404, get("/api/cameras/nosuchcamera/snapshot.jpg").statusCode(), "a camera nobody runs");
    }

    @Test
    void aVersionPromotedOnTheOwnerReachesTheOtherNodeWithoutTheToken() throws Exception {
        String ownerId = owner.app.nodeId();
        // a version promoted on the owner (by an operator there) is served by the other node
        Path weights = TestMedia.dir().resolve("promoted-" + System.currentTimeMillis() + ".weights");
        NetworkSpec spec = NetworkSpec.load(TestMedia.cfg("yolov4-tiny.cfg"), 64, 64);
        WeightsFile.write(weights, spec, WeightsInit.darknet(spec, 7));
        String version = LoadedModel.fileVersion(weights);
        assertNotEquals(version, active(other), "a new version");
        // adopting loads and swaps the weights in: as long as it takes on a loaded machine
        JsonObject promoted = owner.app.registry().adopt(weights, null, "operator").toCompletionStage().toCompletableFuture()
                .get(70, TimeUnit.SECONDS).toJson();
        assertEquals(version, promoted.getString("version"), promoted.encode());
        Waits.waitFor(() -> version.equals(active(other)), WAIT_MS, "the other node serving version " + version + " of the owner");
        JsonObject kept = await(other.app.registry().versions()).toJson();
        assertTrue(kept.encode().contains("adopted from node " + ownerId), "kept as adopted from the owner: " + kept.encode());
    }

    @Test
    void theAnsweringNodeChecksEveryIdOfARequest() throws Exception {
        String ownerId = owner.app.nodeId();
        // the addresses spelled out, as another node (or a rogue one) would
        String snapshots = "argus.node." + ownerId + ".snapshots";
        assertRefused(snapshots, new JsonObject().put("camera", "../../etc/passwd"), "camera id");
        assertRefused(snapshots, new JsonObject().put("camera", "cam").put("frame", "1; rm"), "frame");
        assertRefused(snapshots, new JsonObject().put("camera", "cam").put("event", "other-1-2"), "event id");
        assertRefused(snapshots, "cam", "JSON object");
        String weights = "argus.node." + ownerId + ".weights";
        assertRefused(weights, new JsonObject().put("model", "tiny").put("version", "../../../etc/passwd").put("offset", 0), "version");
        assertRefused(weights, new JsonObject().put("model", "../tiny").put("version", "sha256:0").put("offset", 0), "model id");
        assertRefused(weights, new JsonObject().put("model", "tiny").put("version", active(owner)).put("offset", -1), "offset");
        assertRefused(weights, new JsonObject().put("model", "tiny").put("version", active(owner)).put("offset", 1L << 40), "offset");
    }

    /** The request, sent from the node that does not run the camera to the owner, fails 400 naming {@code field}. */
    private static void assertRefused(String address, Object body, String field) throws Exception {
        try {
            other.app.vertx().eventBus().request(address, body, new DeliveryOptions().setSendTimeout(10_000))
                    .toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            ReplyException re = (ReplyException) e.getCause();
            assertEquals(400, re.failureCode(), address + " " + body + ": " + re.getMessage());
            assertTrue(re.getMessage().contains(field), "names " + field + ": " + re.getMessage());
            return;
        }
        throw new AssertionError(address + " answered " + body);
    }

    private static RunningApp start(JsonObject config) {
        try {
            return new RunningApp(TestConfig.read(config));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Node {@code i} (1 or 2) of the cluster, with its own API token, cache and training data. */
    private static JsonObject node(int i, String token, int[] hazelcast, String video, Path dir) {
        try {
            JsonObject config = TestConfig.light();
            config.getJsonObject("http").put("token", token);
            config.put("cacheDir", dir.resolve("cache-" + i).toString());
            config.getJsonArray("cameras").add(TestConfig.camera("cam", video).put("loop", true).put("realtime", true));
            // one snapshot a second, three kept: a frame number read from one answer is still there for the next request
            config.put("snapshots", new JsonObject().put("fps", 1).put("maxWidth", 160));
            config.put("training", new JsonObject().put("enabled", true).put("model", "tiny")
                    .put("dataDir", dir.resolve("data-" + i).toString()).put("collect", new JsonObject().put("enabled", false)));
            config.put("cluster", cluster(i, hazelcast, dir));
            return config;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The cluster section, the same for both nodes but for the port (and the same secret: TestCluster). */
    private static JsonObject cluster(int i, int[] hazelcast, Path dir) {
        return io.argus.pipeline.testing.TestCluster.section("argus-" + dir.getFileName(), hazelcast[i - 1],
                        List.of("127.0.0.1:" + hazelcast[0], "127.0.0.1:" + hazelcast[1]))
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", 5000).put("minSize", 1)
                .put("leaseMs", 10_000).put("renewIntervalMs", 300);
    }

    /** The camera's owner as a node lists it (its cluster camera list, asked in-process: no HTTP). */
    private static String ownerOfCam(RunningApp app) {
        try {
            return await(app.app.cameras().get("cam")).json().getString("owner");
        } catch (Exception e) {
            return null;
        }
    }

    /** A GET on the node that does not run the camera, with that node's token. */
    private static HttpResponse<Buffer> get(String path) throws Exception {
        return web.get(other.port(), "127.0.0.1", path).bearerTokenAuthentication(other.token()).send()
                .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** The version a node's registry serves (asked in-process). */
    private static String active(RunningApp app) throws Exception {
        return await(app.app.registry().active()).version();
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
