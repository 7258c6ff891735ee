package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A camera's recordings from any node of a cluster (docs/recording.md, docs/cluster.md): two Argus processes, one
 * camera (the demo model on the shapes sample) recorded in 2 s segments by the node that runs it (A). The other node
 * (B), whose API token differs from A's, lists its segments, each naming A as its node, nobody unreachable, the same
 * list as A's; serves a segment whole
 * and by byte range, fetched from A over the clustered event bus, byte for byte what A serves of its own file; a time
 * range as one MP4 and an event's clip, made by A's clip writer, the same bytes as A's own answer; the detections,
 * stored events and spans of A's camera, the same as A's own; and its storage status lists A's camera under A.
 *
 * <p>Budget: 60 s (two JVMs joining, the camera's first two segments, an event ended 3 s ago: 24.8 s at load 3; 24.3 s
 * here, of which 0.12 s the detections, events, spans and status).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 60)
class ClusterRecordingsTest {
    static final String CAMERA = "rec";
    final Vertx client = Vertx.vertx();
    final List<ClusterNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ClusterNode n : nodes) n.close();
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void anyNodeListsAndServesTheRecordingsOfTheNodeThatMadeThem() throws Exception {
        long started = System.currentTimeMillis();
        Path dir = TestMedia.dir().resolve("cluster-recordings-" + started);
        Files.createDirectories(dir);
        Path sample = SampleVideo.ensure(dir.resolve("shared-cache"));
        int[] hz = {ClusterNode.freePort(), ClusterNode.freePort()};
        List<String> members = List.of("127.0.0.1:" + hz[0], "127.0.0.1:" + hz[1]);
        JsonObject camera = TestConfig.camera(CAMERA, "sample:").put("record", new JsonObject().put("mode", "continuous")
                .put("preRollSeconds", 1).put("postRollSeconds", 1));
        for (int i = 0; i < 2; i++) nodes.add(startNode(i + 1, hz[i], members, camera, dir, sample));
        for (ClusterNode n : nodes) await(n::ready, 150_000, n.name + " ready", nodes.toArray(ClusterNode[]::new));
        long ready = System.currentTimeMillis();

        await(() -> ownerOf(nodes.get(0)) != null, 30_000, "an owner for the camera", nodes.toArray(ClusterNode[]::new));
        String aId = ownerOf(nodes.get(0));
        ClusterNode a = nodes.get(0).id().equals(aId) ? nodes.get(0) : nodes.get(1);
        ClusterNode b = a == nodes.get(0) ? nodes.get(1) : nodes.get(0);
        System.out.printf("cluster recordings: camera on %s (%s), asked of %s; both ready %d ms after the start%n", a.name, aId,
                b.name, ready - started);

        // B lists A's segments: two complete ones, each naming A, nobody unreachable
        JsonObject[] listed = {null};
        await(() -> {
            listed[0] = b.get("/api/recordings/" + CAMERA + "?from=0").json();
            return listed[0].getJsonArray("segments").stream().filter(o -> ((JsonObject) o).getBoolean("complete")).count() >= 2;
        }, 30_000, "two complete segments listed by the node without the camera", a, b);
        long listedAt = System.currentTimeMillis();
        JsonObject list = listed[0];
        assertEquals(new JsonArray(), list.getJsonArray("unreachable"), list.encode());
        JsonObject s0 = list.getJsonArray("segments").getJsonObject(0);
        JsonObject s1 = list.getJsonArray("segments").getJsonObject(1);
        for (JsonObject s : List.of(s0, s1)) {
            assertEquals(aId, s.getString("node"), s.encode());
            assertEquals("/api/recordings/" + s.getString("name") + "?node=" + aId, s.getString("url"));
            assertTrue(s.getString("name").startsWith(CAMERA + "/"), s.encode());
        }
        JsonObject aList = a.get("/api/recordings/" + CAMERA + "?from=0&to=" + s1.getLong("endMs")).json();
        assertEquals(s0, aList.getJsonArray("segments").getJsonObject(0), "the same list on A: " + aList.encode());
        assertEquals(s1, aList.getJsonArray("segments").getJsonObject(1), aList.encode());
        JsonObject limited = b.get("/api/recordings/" + CAMERA + "?from=0&limit=1").json();
        assertEquals(1, limited.getJsonArray("segments").size(), limited.encode());
        assertTrue(limited.getBoolean("more"), limited.encode());

        // a segment whole and by byte ranges from B: A's own file, byte for byte
        String url = s1.getString("url");
        ClusterNode.Raw own = a.fetch(url, Map.of());
        ClusterNode.Raw whole = b.fetch(url, Map.of());
        assertEquals(200, own.status(), own.body().toString());
        assertEquals(200, whole.status(), whole.body().toString());
        assertEquals(s1.getLong("bytes").intValue(), own.body().length(), s1.encode());
        assertEquals(own.body(), whole.body(), "the segment from B is A's file");
        assertEquals("video/mp4", whole.header("content-type"));
        assertEquals(aId, whole.header("x-argus-recording-from"));
        long size = own.body().length();
        for (String range : List.of("bytes=100-199", "bytes=" + (size / 2) + "-", "bytes=-300")) {
            ClusterNode.Raw part = b.fetch(url, Map.of("Range", range));
            ClusterNode.Raw ownPart = a.fetch(url, Map.of("Range", range));
            assertEquals(206, part.status(), range + ": " + part.body());
            assertEquals(ownPart.header("content-range"), part.header("content-range"), range);
            assertEquals(ownPart.body(), part.body(), range);
        }
        assertEquals(416, b.fetch(url, Map.of("Range", "bytes=" + size + "-")).status());
        assertEquals(404, b.fetch("/api/recordings/" + CAMERA + "/2025-01-01/1735689600000.mp4?node=" + aId, Map.of()).status());
        assertEquals(400, b.fetch("/api/recordings/" + s1.getString("name") + "?node=..%2Fetc", Map.of()).status());
        long segmentsAt = System.currentTimeMillis();

        // a time range across the two segments, made by A, as A makes it for itself
        long from = s0.getLong("startMs") + 500;
        long to = s1.getLong("startMs") + 500;
        await(() -> System.currentTimeMillis() > to + 3_000, 10_000, "the range's end 3 s past (its clip then made once)", a, b);
        ClusterNode.Raw clip = b.fetch("/api/recordings/" + CAMERA + "/clip.mp4?from=" + from + "&to=" + to, Map.of());
        assertEquals(200, clip.status(), clip.body().toString());
        assertEquals(aId, clip.header("x-argus-recording-from"));
        ClusterNode.Raw ownClip = a.fetch("/api/recordings/" + CAMERA + "/clip.mp4?from=" + from + "&to=" + to, Map.of());
        assertEquals(200, ownClip.status(), ownClip.body().toString());
        // made when B asked (A's own request then gets that file again): from the keyframe at or before the range's start
        long clipFrom = Long.parseLong(clip.header("x-clip-from"));
        long clipTo = Long.parseLong(clip.header("x-clip-to"));
        assertTrue(clipFrom <= from && clipFrom > from - 1_040, clipFrom + " for " + from);
        assertTrue(clipTo < to && clipTo >= to - 80, clipTo + " for " + to);
        assertEquals(ownClip.body(), clip.body(), "the clip from B is A's");
        ClusterNode.Raw clipPart = b.fetch("/api/recordings/" + CAMERA + "/clip.mp4?from=" + from + "&to=" + to, Map.of("Range", "bytes=0-99"));
        assertEquals(206, clipPart.status());
        assertEquals(ownClip.body().getBuffer(0, 100), clipPart.body());
        long clipAt = System.currentTimeMillis();

        // an event's clip, asked of B: made by A with its rolls
        JsonObject[] event = {null};
        long recordedFrom = s0.getLong("startMs");
        await(() -> {
            for (Object o : b.get("/api/events?camera=" + CAMERA + "&limit=200").json().getJsonArray("events")) {
                JsonObject e = (JsonObject) o;
                JsonObject ref = e.getJsonObject("clip");
                if (e.getValue("end") != null && ref != null && ref.getLong("from") >= recordedFrom + 1_000
                        && ref.getLong("to") < System.currentTimeMillis() - 3_000) {
                    event[0] = e;
                    return true;
                }
            }
            return false;
        }, 40_000, "an event of the camera, recorded, ended 3 s ago", a, b);
        String eventClip = event[0].getJsonObject("clip").getString("url");
        ClusterNode.Raw fromB = b.fetch(eventClip, Map.of());
        assertEquals(200, fromB.status(), fromB.body().toString());
        assertEquals(aId, fromB.header("x-argus-recording-from"));
        ClusterNode.Raw fromA = a.fetch(eventClip, Map.of());
        assertEquals(200, fromA.status(), fromA.body().toString());
        assertEquals(fromA.body(), fromB.body(), "the event's clip from B is A's");
        long eventClipAt = System.currentTimeMillis();

        // what the review page reads besides the segments, asked of B: A's own answers (each kept with A's recording
        // within a second; asked again until both read the same)
        long r0 = s0.getLong("startMs");
        long r1 = s1.getLong("endMs");
        for (String[] q : new String[][]{{"detections?from=" + r0 + "&to=" + r1, "frames"}, {"events?from=0&to=" + r1, "events"},
                {"spans?from=0&to=" + r1, "spans"}}) {
            String path = "/api/recordings/" + CAMERA + "/" + q[0];
            JsonObject[] answers = {null, null};
            await(() -> {
                answers[0] = a.get(path).json();
                answers[1] = b.get(path).json();
                JsonArray aItems = answers[0].getJsonArray(q[1]);
                return aItems != null && !aItems.isEmpty() && aItems.equals(answers[1].getJsonArray(q[1]));
            }, 15_000, "B's " + q[1] + " the same as A's own", a, b);
            assertEquals(new JsonArray(), answers[1].getJsonArray("unreachable"), answers[1].encode());
        }
        JsonObject status = b.get("/api/recordings").json();
        assertTrue(status.getJsonObject("members").getJsonObject(aId).getJsonObject("cameras").containsKey(CAMERA),
                "B's status lists A's camera: " + status.encode());
        long end = System.currentTimeMillis();
        System.out.printf("cluster recordings: listed %d ms after ready, segment %d bytes whole and 3 ranges in %d ms, range clip %d bytes"
                        + " in %d ms, event clip %d bytes in %d ms, detections, events, spans and status in %d ms; %d ms in all%n",
                listedAt - ready, size, segmentsAt - listedAt, clip.body().length(), clipAt - segmentsAt, fromB.body().length(),
                eventClipAt - clipAt, end - eventClipAt, end - started);
    }

    private static String ownerOf(ClusterNode n) {
        try {
            return n.get("/api/cameras/" + CAMERA).json().getString("owner");
        } catch (Exception e) {
            return null;
        }
    }

    private ClusterNode startNode(int i, int hazelcastPort, List<String> members, JsonObject camera, Path dir, Path sample)
            throws Exception {
        JsonObject config = TestConfig.demo();
        int http = ClusterNode.freePort();
        // a token of its own per node: nothing between the nodes could use one (it never leaves its node)
        String token = "token-of-recording-node-" + i;
        config.getJsonObject("http").put("port", http).put("token", token);
        Path cache = dir.resolve("cache-" + i);
        Files.createDirectories(cache);
        Files.copy(sample, cache.resolve(sample.getFileName()));   // the sample video, made once for both
        config.put("cacheDir", cache.toString());
        config.put("cameras", new JsonArray().add(camera.copy())).put("snapshots", new JsonObject().put("fps", 2).put("maxWidth", 160));
        config.put("recording", new JsonObject().put("segmentSeconds", 2));
        config.put("cluster", TestCluster.section("argus-recordings-" + dir.getFileName(), hazelcastPort, members)
                .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", 5000).put("minSize", 1)
                .put("leaseMs", 10_000).put("renewIntervalMs", 300));
        return ClusterNode.start("node" + i, config, "127.0.0.1", http, hazelcastPort, dir, client, List.of(), token);
    }

    private void await(Waits.Check condition, long timeoutMs, String what, ClusterNode... show) throws Exception {
        Waits.waitFor(() -> {
            if (condition.ok()) return true;
            for (ClusterNode n : show) if (!n.alive()) fail(n.name + " exited while waiting for " + what + "\n" + n.tail());
            return false;
        }, timeoutMs, 200, () -> {
            StringBuilder tails = new StringBuilder(what);
            for (ClusterNode n : show) tails.append('\n').append(n.tail());
            return tails.toString();
        });
    }
}
