package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.cluster.HeldFiles;
import io.argus.pipeline.cluster.NodeRecordings;
import io.argus.pipeline.cluster.RecordingQuery;
import io.argus.pipeline.recording.Recordings;
import io.argus.pipeline.testing.TestHttp;
import io.argus.pipeline.testing.TestMedia;
import io.argus.recording.SegmentIndex;
import io.argus.testkit.Budget;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The REST side of a cluster's recordings ({@link MemberRecordings}) on one plain Vert.x: this node ("self", nothing
 * recorded) lists and serves the recordings of member "other" ({@link NodeRecordings} on its node address), while
 * member "ghost" has no handler, "slow" never answers and "liar" answers nonsense. The list names the holder of each
 * segment and the members it could not hear from (the silent one after the list's deadline) instead of failing; a
 * segment comes whole and by byte ranges (inside a chunk, across chunk boundaries, the last bytes), exactly as the
 * holder has it, a range outside it 416; a clip is made by the member that has the range and streamed; a chunk of the
 * wrong length cuts the response short rather than sending wrong bytes; a node that is not a name is 400, one that is
 * not a member 404. The detections, stored events and spans of a range are merged from every member ("twin" holds
 * the same camera at other times, some the same): frames by time, events newest first each id once, spans joined
 * where they meet, each cut at its bound and never claiming past the end of a member's cut list; the status adds
 * every other member's; a member answering more than {@link RecordingQuery#ANSWER_BYTES} ("huge") is named
 * unreachable, unread.
 *
 * <p>Budget: 20 s (the lists' 3 s deadline twice: 10.1 s in all here).
 */
@Budget(seconds = 20)
class MemberRecordingsTest {
    static Vertx vertx;
    static HeldFiles held;
    /** A second member with the same camera's recordings of other times (after a failover), some the same. */
    static HeldFiles twin;
    static HttpServer server;
    static WebClient web;
    /** The members now: the silent one only where its deadline is what is tested. */
    static volatile List<String> members = List.of();
    static final List<String> ALL = List.of("self", "other", "ghost", "slow", "liar");

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        held = new HeldFiles(Files.createTempDirectory(TestMedia.dir(), "member-recordings-"));
        await(vertx.deployVerticle(new NodeRecordings("other", held)));
        vertx.eventBus().consumer(Addresses.nodeRecordings("slow"), m -> {
            // never answers
        });
        twin = new HeldFiles(Files.createTempDirectory(TestMedia.dir(), "member-recordings-twin-"));
        long t0 = HeldFiles.START_MS;
        twin.frames = List.of(HeldFiles.frame(t0 + 80), HeldFiles.frame(t0 + 100), HeldFiles.frame(t0 + 1_500));
        twin.events = List.of(HeldFiles.event("cam-1-1", t0 + 1_500, t0 + 1_900), HeldFiles.event("cam-2-0", t0 + 1_000, t0 + 1_200));
        twin.spans = List.of(new SegmentIndex.Span(t0 + 2_500, t0 + 5_000), new SegmentIndex.Span(t0 + 10_000, t0 + 12_000));
        await(vertx.deployVerticle(new NodeRecordings("twin", twin)));
        // valid JSON of a list, but larger than any answer may be: refused unread
        Buffer huge = new JsonObject().put("frames", new JsonArray()).put("events", new JsonArray()).put("spans", new JsonArray())
                .put("more", false).put("pad", "x".repeat(RecordingQuery.ANSWER_BYTES)).toBuffer();
        vertx.eventBus().consumer(Addresses.nodeRecordings("huge"), m -> m.reply(huge));
        vertx.eventBus().consumer(Addresses.nodeRecordings("liar"), m -> m.reply(Buffer.buffer(new byte[10]),
                new DeliveryOptions().addHeader(NodeRecordings.SIZE, Integer.toString(HeldFiles.SEGMENT_BYTES))));
        Router router = Router.router(vertx);
        RecordingRoutes.mount(router, Recordings.OFF, null, new MemberRecordings(vertx, "self", () -> members, Recordings.OFF));
        server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
        web = WebClient.create(vertx, TestHttp.options("127.0.0.1", server.actualPort()));
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theListNamesEachSegmentsNodeAndTheMembersNotHeard() throws Exception {
        members = ALL;
        long started = System.nanoTime();
        HttpResponse<Buffer> r = get("/api/recordings/cam?from=0&to=" + (HeldFiles.START_MS + 10), Map.of());
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject list = r.bodyAsJsonObject();
        JsonArray segments = list.getJsonArray("segments");
        assertEquals(1, segments.size(), list.encode());
        JsonObject s = segments.getJsonObject(0);
        assertEquals("other", s.getString("node"));
        assertEquals(held.segment, s.getString("name"));
        assertEquals("/api/recordings/" + held.segment + "?node=other", s.getString("url"));
        assertEquals(HeldFiles.SEGMENT_BYTES, s.getLong("bytes"));
        assertEquals(new JsonArray().add("ghost").add("liar").add("slow"), list.getJsonArray("unreachable"), list.encode());
        assertTrue(ms >= MemberRecordings.LIST_TIMEOUT_MS - 100 && ms < MemberRecordings.LIST_TIMEOUT_MS + 2_000,
                "the silent member waited for its deadline only: " + ms + " ms");
        System.out.printf("member recordings: list with a silent member in %d ms%n", ms);
    }

    @Test
    void aSegmentOfAnotherNodeComesWholeAndByRanges() throws Exception {
        members = ALL;
        String url = "/api/recordings/" + held.segment + "?node=other";
        HttpResponse<Buffer> whole = get(url, Map.of());
        assertEquals(200, whole.statusCode(), whole.bodyAsString());
        assertEquals("video/mp4", whole.getHeader("content-type"));
        assertEquals("other", whole.getHeader("x-argus-recording-from"));
        assertArrayEquals(held.segmentBytes, whole.body().getBytes());
        int size = HeldFiles.SEGMENT_BYTES;
        int mib = 1 << 20;
        for (long[] range : new long[][]{{100, 199}, {mib - 10, 2L * mib + 10}, {0, size - 1}, {3L * mib, size + 1000}}) {
            HttpResponse<Buffer> part = get(url, Map.of("Range", "bytes=" + range[0] + "-" + range[1]));
            long last = Math.min(range[1], size - 1);
            assertEquals(206, part.statusCode(), part.bodyAsString());
            assertEquals("bytes " + range[0] + "-" + last + "/" + size, part.getHeader("content-range"));
            assertArrayEquals(Arrays.copyOfRange(held.segmentBytes, (int) range[0], (int) last + 1), part.body().getBytes(),
                    "bytes " + range[0] + "-" + last);
        }
        HttpResponse<Buffer> suffix = get(url, Map.of("Range", "bytes=-500"));
        assertArrayEquals(Arrays.copyOfRange(held.segmentBytes, size - 500, size), suffix.body().getBytes());
        HttpResponse<Buffer> from = get(url, Map.of("Range", "bytes=" + (size - 7) + "-"));
        assertArrayEquals(Arrays.copyOfRange(held.segmentBytes, size - 7, size), from.body().getBytes());
        HttpResponse<Buffer> outside = get(url, Map.of("Range", "bytes=" + size + "-"));
        assertEquals(416, outside.statusCode());
        assertEquals("bytes */" + size, outside.getHeader("content-range"));
        assertEquals(416, get(url, Map.of("Range", "lines=1-2")).statusCode());
    }

    @Test
    void aClipIsMadeByTheMemberThatHasTheRange() throws Exception {
        members = List.of("self", "other", "ghost", "liar");
        long from = HeldFiles.START_MS + 100;
        HttpResponse<Buffer> clip = get("/api/recordings/cam/clip.mp4?from=" + from + "&to=" + (from + 1_000), Map.of());
        assertEquals(200, clip.statusCode(), clip.bodyAsString());
        assertEquals("other", clip.getHeader("x-argus-recording-from"));
        assertEquals(Long.toString(from), clip.getHeader("x-clip-from"));
        assertEquals(Long.toString(from + 999), clip.getHeader("x-clip-to"));
        assertArrayEquals(held.clipBytes, clip.body().getBytes());
        HttpResponse<Buffer> part = get("/api/recordings/cam/clip.mp4?node=other&from=1000&to=2000", Map.of("Range", "bytes=0-99"));
        assertEquals(206, part.statusCode(), part.bodyAsString());
        assertArrayEquals(Arrays.copyOf(held.clipBytes, 100), part.body().getBytes());
        assertEquals(404, get("/api/recordings/cam/clip.mp4?from=1000&to=2000", Map.of()).statusCode(), "nobody has it");
        assertEquals(404, get("/api/recordings/nope/clip.mp4?node=other&from=1000&to=2000", Map.of()).statusCode());
    }

    @Test
    void badNodesMissingSegmentsAndLyingMembers() throws Exception {
        members = ALL;
        String name = "/api/recordings/" + held.segment;
        assertEquals(400, get(name + "?node=..%2F..%2Fetc", Map.of()).statusCode());
        assertEquals(400, get(name + "?node=", Map.of()).statusCode());
        assertEquals(404, get(name + "?node=stranger", Map.of()).statusCode(), "not a member");
        assertEquals(502, get(name + "?node=ghost", Map.of()).statusCode(), "a member without the handler");
        assertEquals(404, get("/api/recordings/cam/2025-01-01/1735689600000.mp4?node=other", Map.of()).statusCode());
        HttpResponse<Buffer> here = get(name + "?node=self", Map.of());
        assertTrue(here.bodyAsString().contains("nothing is recorded on this node"), "asked of this node itself: " + here.bodyAsString());
        // the liar's first chunk is 10 bytes: the response is cut, never padded or passed on as if whole
        HttpResponse<Buffer> cut = null;
        try {
            cut = get(name + "?node=liar", Map.of());
        } catch (Exception e) {
            // the connection closed mid-body: what a client of a cut response sees
        }
        assertTrue(cut == null || cut.body() == null || cut.body().length() < HeldFiles.SEGMENT_BYTES,
                "a lying member's segment is not served whole");
    }

    @Test
    void detectionsEventsSpansAndStatusAreMergedFromEveryMember() throws Exception {
        members = List.of("self", "other", "twin", "ghost", "slow", "liar", "huge");
        long t0 = HeldFiles.START_MS;
        long started = System.nanoTime();
        // all four at once: the silent member's deadline is waited for once
        var asked = List.of(web.get("/api/recordings/cam/detections?from=" + t0 + "&to=" + (t0 + 2_000)).send(),
                web.get("/api/recordings/cam/events?from=0&to=" + (t0 + 2_000) + "&limit=2").send(),
                web.get("/api/recordings/cam/spans?from=0&to=" + (t0 + 20_000) + "&limit=1").send(),
                web.get("/api/recordings").send());
        List<JsonObject> got = new java.util.ArrayList<>();
        for (var f : asked) {
            HttpResponse<Buffer> r = f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), r.bodyAsString());
            got.add(r.bodyAsJsonObject());
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        JsonArray unreachable = new JsonArray().add("ghost").add("huge").add("liar").add("slow");
        for (JsonObject j : got) assertEquals(unreachable, j.getJsonArray("unreachable"), j.encode());

        // frames by time, oldest first, one per time (both members have t0 + 80)
        JsonObject frames = got.get(0);
        assertEquals(List.of(t0 + 40, t0 + 80, t0 + 100, t0 + 1_200, t0 + 1_500),
                frames.getJsonArray("frames").stream().map(o -> ((JsonObject) o).getLong("t")).toList(), frames.encode());
        assertEquals(false, frames.getBoolean("more"));
        // events newest first, each id once (the ended copy of cam-1-1 over the open one), cut at the limit
        JsonObject events = got.get(1);
        assertEquals(List.of("cam-1-1", "cam-2-0"), events.getJsonArray("events").stream().map(o -> ((JsonObject) o).getString("id")).toList());
        assertEquals(t0 + 1_900, events.getJsonArray("events").getJsonObject(0).getLong("end"), "the ended copy: " + events.encode());
        assertTrue(events.getBoolean("more"));
        // spans joined across members where they meet within a second; the twin's list was cut after its first span,
        // so nothing past that span is claimed
        JsonObject spans = got.get(2);
        assertEquals(new JsonArray().add(new JsonArray().add(t0).add(t0 + 5_000)), spans.getJsonArray("spans"), spans.encode());
        assertTrue(spans.getBoolean("more"));
        // the status: this node's own fields where they were, every other member's under members
        JsonObject status = got.get(3);
        assertEquals(false, status.getBoolean("recording"), "this node's own: " + status.encode());
        assertEquals(java.util.Set.of("other", "twin"), status.getJsonObject("members").fieldNames());
        assertTrue(status.getJsonObject("members").getJsonObject("twin").getJsonObject("cameras").containsKey("cam"), status.encode());
        assertTrue(ms >= MemberRecordings.LIST_TIMEOUT_MS - 100 && ms < MemberRecordings.LIST_TIMEOUT_MS + 2_000,
                "the silent member waited for its deadline only: " + ms + " ms");
        System.out.printf("member recordings: detections, events, spans and status with a silent member in %d ms%n", ms);

        members = List.of("self", "other", "twin");
        JsonObject all = get("/api/recordings/cam/spans?from=0&to=" + (t0 + 20_000), Map.of()).bodyAsJsonObject();
        assertEquals(new JsonArray().add(new JsonArray().add(t0).add(t0 + 5_000)).add(new JsonArray().add(t0 + 10_000).add(t0 + 12_000)),
                all.getJsonArray("spans"), all.encode());
        assertEquals(false, all.getBoolean("more"));
        JsonObject allEvents = get("/api/recordings/cam/events?from=0&to=" + (t0 + 2_000), Map.of()).bodyAsJsonObject();
        assertEquals(List.of("cam-1-1", "cam-2-0", "cam-1-0"),
                allEvents.getJsonArray("events").stream().map(o -> ((JsonObject) o).getString("id")).toList(), allEvents.encode());
        assertEquals(false, allEvents.getBoolean("more"));
        JsonObject cut = get("/api/recordings/cam/detections?from=" + t0 + "&to=" + (t0 + 2_000) + "&limit=2", Map.of()).bodyAsJsonObject();
        assertEquals(5, cut.getJsonArray("frames").size(), "detections take no limit: " + cut.encode());
    }

    @Test
    void badRangesAndLimitsOfTheMergedListsAre400() throws Exception {
        members = List.of("self", "other", "twin");
        for (String bad : List.of("detections?from=10&to=5", "detections?from=0&to=600001", "detections?from=0", "detections?from=x&to=5",
                "events?from=10&to=5", "events?limit=1001", "events?limit=0", "spans?from=10&to=5", "spans?limit=10001", "spans?limit=-1")) {
            HttpResponse<Buffer> r = get("/api/recordings/cam/" + bad, Map.of());
            assertEquals(400, r.statusCode(), bad + ": " + r.bodyAsString());
        }
        assertEquals(400, get("/api/recordings/..%2Fcam/spans", Map.of()).statusCode());
    }

    private static HttpResponse<Buffer> get(String path, Map<String, String> headers) throws Exception {
        var req = web.get(path).timeout(15_000);
        headers.forEach(req::putHeader);
        return req.send().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
