package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.cluster.HeldFiles;
import io.argus.pipeline.cluster.NodeRecordings;
import io.argus.pipeline.recording.Recordings;
import io.argus.pipeline.testing.TestHttp;
import io.argus.pipeline.testing.TestMedia;
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
 * not a member 404.
 *
 * <p>Budget: 15 s (the list's 3 s deadline once; about 5 s in all).
 */
@Budget(seconds = 15)
class MemberRecordingsTest {
    static Vertx vertx;
    static HeldFiles held;
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

    private static HttpResponse<Buffer> get(String path, Map<String, String> headers) throws Exception {
        var req = web.get(path).timeout(15_000);
        headers.forEach(req::putHeader);
        return req.send().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
