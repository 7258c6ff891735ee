package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a node answers other members about its recordings ({@link NodeRecordings}), on one plain Vert.x with the
 * handler on its node address: every request from the cluster is hostile until checked. A malformed one (not an
 * object, an unknown action, a name that is a path or not a name, a number that is text, a fraction, negative or
 * huge, a length over a chunk, a range backwards or over an hour) gets 400 and reaches nothing of the recordings;
 * an offset past the end gets 400; a segment or clip token not there 404. What is asked rightly comes back exactly:
 * a list, chunks of at most 1 MiB with the file's size, a clip by its token, which stops working once the clip is
 * made again; the detections, stored events and spans of a range (at most as many as asked, more said when there were
 * more, a list that would outgrow {@link RecordingQuery#ANSWER_BYTES} cut short of it) and the storage status, as
 * encoded JSON.
 *
 * <p>Budget: 10 s (0.5 s alone, 2.9 s beside another test class here; most of it the 8 MiB answer cut short).
 */
@Budget(seconds = 10)
class NodeRecordingsTest {
    static Vertx vertx;
    static HeldFiles held;
    static final String ADDRESS = Addresses.nodeRecordings("node1");

    @BeforeAll
    static void serve() throws Exception {
        vertx = Vertx.vertx();
        held = new HeldFiles(Files.createTempDirectory(TestMedia.dir(), "node-recordings-"));
        vertx.deployVerticle(new NodeRecordings("node1", held)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void malformedRequestsAreRefusedAndReachNothing() throws Exception {
        String seg = held.segment;
        List<Object> bad = List.of(
                "segments of cam", new JsonArray().add("segments"), new JsonObject(),
                new JsonObject().put("action", "delete").put("camera", "cam"),
                new JsonObject().put("action", 7),
                // names that are paths, or not names
                segments("../etc", 0, 10, 5), segments("cam/../../x", 0, 10, 5), segments("", 0, 10, 5),
                segments("x".repeat(65), 0, 10, 5), new JsonObject().put("action", "segments").put("from", 0).put("to", 1).put("limit", 1),
                read("../../../etc/passwd", 0, 10), read("cam/2026-11-29/../../../etc/passwd.mp4", 0, 10),
                read("/etc/passwd", 0, 10), read("cam/2026-11-29/1.txt", 0, 10), read("cam\u0000/2026-11-29/1.mp4", 0, 10),
                new JsonObject().put("action", "read").put("clip", "../clip.mp4").put("offset", 0).put("length", 1),
                new JsonObject().put("action", "read").put("clip", "ABCDEF0123456789ABCDEF0123456789").put("offset", 0).put("length", 1),
                new JsonObject().put("action", "read").put("offset", 0).put("length", 1),
                read(seg, 0, 1).put("clip", "0123456789abcdef0123456789abcdef"),
                // numbers: negative, huge, fractions, text
                read(seg, -1, 10), read(seg, 0, -1), read(seg, 0, (1 << 20) + 1), read(seg, 0, Integer.MAX_VALUE),
                read(seg, 0, Long.MAX_VALUE), read(seg, Long.MAX_VALUE, 10), read(seg, 1_000_000_000_000_000L, 10),
                read(seg, 0, 1).put("offset", 1.5), read(seg, 0, 1).put("offset", "0"), read(seg, 0, 1).put("length", 1e9),
                segments("cam", 10, 0, 5), segments("cam", 0, 10, 0), segments("cam", 0, 10, 10_002),
                segments("cam", 0, 10, 5).put("limit", 4_294_967_297L), segments("cam", -5, 10, 5),
                new JsonObject().put("action", "clip").put("camera", "cam").put("from", 0).put("to", 3_600_001),
                new JsonObject().put("action", "clip").put("camera", "cam").put("from", 10).put("to", 10),
                new JsonObject().put("action", "clip").put("camera", "../cam").put("from", 0).put("to", 10),
                new JsonObject().put("action", "event-clip").put("camera", "cam").put("start", 10).put("end", 5),
                new JsonObject().put("action", "event-clip").put("camera", "cam").put("start", -1).put("end", -1),
                new JsonObject().put("action", "event-clip").put("camera", "cam").put("start", 10),
                // the lists kept with the recording: ranges backwards, too long, limits out of bounds, names that are paths
                list("detections", "cam", 10, 5, 5), list("detections", "cam", 10, 10, 5), list("detections", "cam", 0, 600_001, 5),
                list("detections", "cam", 0, 10, 0), list("detections", "cam", 0, 10, 20_001), list("detections", "../cam", 0, 10, 5),
                list("events", "cam", 10, 5, 5), list("events", "cam", 0, 10, 1_001), list("events", "cam", -5, 10, 5),
                list("events", "cam/..", 0, 10, 5), list("events", "cam", 0, 10, 5).put("limit", "5"),
                list("spans", "cam", 10, 5, 5), list("spans", "cam", 0, 10, 10_001), list("spans", "cam", 0, 10, 0),
                list("spans", "cam", 0, 10, 5).put("to", 1.5), list("spans", "cam", 0, 10, 5).put("limit", 4_294_967_297L),
                list("spans", "cam", 0, 10, 5).putNull("camera"));
        int before = held.calls.get();
        for (Object body : bad) {
            assertEquals(400, failure(body).failureCode(), "400 for " + body);
        }
        assertEquals(before, held.calls.get(), "no malformed request reached the recordings");
        ReplyException e = failure(read("../../../etc/passwd", 0, 10));
        assertTrue(e.getMessage().startsWith("recordings request: segment: expected <camera>/<yyyy-MM-dd>/<start ms>.mp4"), e.getMessage());
        assertTrue(failure(segments("x".repeat(5000), 0, 10, 5)).getMessage().length() <= 303, "the reason is cut, never an echo");
    }

    @Test
    void offsetsOutsideTheFileAndMissingFiles() throws Exception {
        ReplyException past = failure(read(held.segment, HeldFiles.SEGMENT_BYTES + 1, 10));
        assertEquals(400, past.failureCode());
        assertTrue(past.getMessage().contains("past the end"), past.getMessage());
        Message<Object> atEnd = ask(read(held.segment, HeldFiles.SEGMENT_BYTES, 10));
        assertEquals(0, ((Buffer) atEnd.body()).length());
        assertEquals(Integer.toString(HeldFiles.SEGMENT_BYTES), atEnd.headers().get(NodeRecordings.SIZE));
        assertEquals(404, failure(read("cam/2025-01-01/1735689600000.mp4", 0, 10)).failureCode());
        assertEquals(404, failure(read("other/2025-01-01/1735689600000.mp4", 0, 10)).failureCode());
        assertEquals(404, failure(new JsonObject().put("action", "read").put("clip", "0123456789abcdef0123456789abcdef")
                .put("offset", 0).put("length", 10)).failureCode(), "a token never given");
        assertEquals(404, failure(new JsonObject().put("action", "clip").put("camera", "nope").put("from", 0).put("to", 10)).failureCode());
    }

    @Test
    void aSegmentComesBackExactlyInChunksOfAtMostOneMebibyte() throws Exception {
        byte[] got = new byte[HeldFiles.SEGMENT_BYTES];
        int chunks = 0;
        for (int offset = 0; offset < got.length; chunks++) {
            Message<Object> m = ask(read(held.segment, offset, 1 << 20));
            Buffer b = (Buffer) m.body();
            assertEquals(Math.min(1 << 20, got.length - offset), b.length());
            assertEquals(Integer.toString(got.length), m.headers().get(NodeRecordings.SIZE));
            System.arraycopy(b.getBytes(), 0, got, offset, b.length());
            offset += b.length();
        }
        assertEquals(4, chunks);
        assertArrayEquals(held.segmentBytes, got);
        // a range inside one chunk, and one across a chunk boundary
        assertArrayEquals(Arrays.copyOfRange(held.segmentBytes, 100, 200), ((Buffer) ask(read(held.segment, 100, 100)).body()).getBytes());
        int from = (1 << 20) - 50;
        assertArrayEquals(Arrays.copyOfRange(held.segmentBytes, from, from + 100), ((Buffer) ask(read(held.segment, from, 100)).body()).getBytes());

        JsonObject listed = (JsonObject) ask(segments("cam", 0, HeldFiles.START_MS + 10, 5)).body();
        assertEquals(held.segment, listed.getJsonArray("segments").getJsonObject(0).getString("name"), listed.encode());
        assertEquals(HeldFiles.START_MS, listed.getJsonArray("segments").getJsonObject(0).getLong("startMs"));
    }

    @Test
    void aClipMadeForAnotherNodeIsReadByItsTokenUntilMadeAgain() throws Exception {
        JsonObject made = (JsonObject) ask(new JsonObject().put("action", "clip").put("camera", "cam").put("from", 1000).put("to", 5000)).body();
        String token = made.getString("clip");
        assertTrue(token.matches("[0-9a-f]{32}"), made.encode());
        assertEquals(1000, made.getLong("from"));
        assertEquals(4999, made.getLong("to"));
        assertEquals(held.clipBytes.length, made.getLong("bytes"));
        JsonObject read = new JsonObject().put("action", "read").put("clip", token).put("offset", 1 << 20).put("length", 1 << 20);
        Message<Object> tail = ask(read);
        assertArrayEquals(Arrays.copyOfRange(held.clipBytes, 1 << 20, held.clipBytes.length), ((Buffer) tail.body()).getBytes());
        JsonObject event = (JsonObject) ask(new JsonObject().put("action", "event-clip").put("camera", "cam").put("start", 10_000)
                .put("end", -1)).body();
        assertTrue(!event.getString("clip").equals(token), "a token per clip asked");

        held.remakeClip();
        ReplyException gone = failure(read);
        assertEquals(404, gone.failureCode());
        assertTrue(gone.getMessage().contains("made again"), gone.getMessage());
    }

    @Test
    void theListsKeptWithTheRecordingAndTheStatusComeAsBoundedJson() throws Exception {
        long t0 = HeldFiles.START_MS;
        JsonObject frames = answer(list("detections", "cam", t0, t0 + 2_000, 2));
        assertEquals(List.of(t0 + 40, t0 + 80), frames.getJsonArray("frames").stream().map(o -> ((JsonObject) o).getLong("t")).toList());
        assertEquals(new JsonArray().add(new JsonArray().add("person").add(0.9).add(10).add(20).add(30).add(40).add(1)),
                frames.getJsonArray("frames").getJsonObject(0).getJsonArray("boxes"));
        assertTrue(frames.getBoolean("more"), "a third frame was left out: " + frames.encode());
        assertEquals(false, answer(list("detections", "cam", t0, t0 + 2_000, 3)).getBoolean("more"));

        JsonObject events = answer(list("events", "cam", 0, t0 + 2_000, 1));
        assertEquals("cam-1-1", events.getJsonArray("events").getJsonObject(0).getString("id"), "newest first");
        assertTrue(events.getBoolean("more"));
        JsonObject spans = answer(list("spans", "cam", 0, t0 + 2_000, 5));
        assertEquals(new JsonArray().add(new JsonArray().add(t0).add(t0 + 2_000)), spans.getJsonArray("spans"));
        assertEquals(false, spans.getBoolean("more"));
        assertEquals(new JsonObject().put("mode", "continuous"), answer(new JsonObject().put("action", "status")).getJsonObject("cameras").getJsonObject("cam"));

        // a list that would outgrow the answer's bound stops short of it and says there is more
        List<io.argus.recording.DetectionLog.Frame> before = held.frames;
        String box = new JsonArray().add("x".repeat(1_000)).encode();
        held.frames = java.util.stream.IntStream.range(0, 20_000).mapToObj(i -> new io.argus.recording.DetectionLog.Frame(t0 + i, 1, 1, "[" + box + "]")).toList();
        try {
            Message<Object> big = ask(list("detections", "cam", t0, t0 + 600_000, 20_000));
            assertTrue(((Buffer) big.body()).length() <= RecordingQuery.ANSWER_BYTES, "answer of " + ((Buffer) big.body()).length());
            JsonObject cut = new JsonObject((Buffer) big.body());
            assertTrue(cut.getBoolean("more"));
            assertTrue(cut.getJsonArray("frames").size() > 7_000 && cut.getJsonArray("frames").size() < 20_000, "" + cut.getJsonArray("frames").size());
        } finally {
            held.frames = before;
        }
    }

    private static JsonObject list(String action, String camera, long from, long to, long limit) {
        return new JsonObject().put("action", action).put("camera", camera).put("from", from).put("to", to).put("limit", limit);
    }

    private static JsonObject answer(JsonObject q) throws Exception {
        return new JsonObject((Buffer) ask(q).body());
    }

    private static JsonObject segments(String camera, long from, long to, long limit) {
        return new JsonObject().put("action", "segments").put("camera", camera).put("from", from).put("to", to).put("limit", limit);
    }

    private static JsonObject read(String segment, long offset, long length) {
        return new JsonObject().put("action", "read").put("segment", segment).put("offset", offset).put("length", length);
    }

    private static Message<Object> ask(Object body) throws Exception {
        return vertx.eventBus().<Object>request(ADDRESS, body).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static ReplyException failure(Object body) throws Exception {
        try {
            ask(body);
        } catch (ExecutionException e) {
            return assertInstanceOf(ReplyException.class, e.getCause(), "a failure reply for " + body);
        }
        fail("expected a failure for " + body);
        return null;
    }
}
