package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A camera with {@code record: {mode: continuous}} through the whole app: the one connection that feeds detection
 * also writes 2 s segments; the REST API lists them and serves each file whole or by byte range; a served segment
 * holds what the index says (ffprobe counts its packets) and decodes on its own; a list request is bounded (limit,
 * more); a time range across segments comes as one MP4 by stream copy, from the keyframe before its start; the
 * recorder's books balance; a segment name that is not one is refused.
 */
@Budget(seconds = 40)
class RecordingEndToEndTest {
    @Test
    void aRecordedCameraListsAndServesItsSegments() throws Exception {
        String video = TestMedia.h264(320, 240, 25, 8).toString();
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("cam", video).put("record", new JsonObject().put("mode", "continuous")));
        json.put("recording", new JsonObject().put("segmentSeconds", 2));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            JsonArray[] listed = {new JsonArray()};
            Waits.waitFor(() -> {
                listed[0] = app.get("/api/recordings/cam").json().getJsonArray("segments");
                return listed[0].stream().filter(o -> ((JsonObject) o).getBoolean("complete")).count() >= 2;
            }, 30_000, 250, () -> "two complete segments of cam, listed: " + listed[0].encode());

            for (int i = 0; i < 2; i++) {
                JsonObject s = listed[0].getJsonObject(i);
                assertTrue(s.getString("name").startsWith("cam/"), s.encode());
                long duration = s.getLong("endMs") - s.getLong("startMs");
                assertEquals(2000, duration, 120, "a 2 s segment (cut at the keyframe each second): " + s.encode());
                if (i > 0) {
                    assertEquals(listed[0].getJsonObject(i - 1).getLong("endMs"), s.getLong("startMs"), 50,
                            "segments meet end to start: " + listed[0].encode());
                }

                RunningApp.Response whole = app.get(s.getString("url"));
                assertEquals(200, whole.status(), whole.body());
                assertEquals("video/mp4", whole.contentType());
                assertEquals(s.getLong("bytes").intValue(), whole.raw().length());
                Path copy = Files.createTempFile("argus-segment", ".mp4");
                try {
                    Files.write(copy, whole.raw().getBytes());
                    assertEquals(s.getLong("packets"), Long.parseLong(run("ffprobe", "-v", "error", "-select_streams", "v:0",
                            "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", copy.toString()).trim()));
                    assertEquals("", run("ffmpeg", "-v", "error", "-i", copy.toString(), "-f", "null", "-").trim(), "decodes on its own");
                } finally {
                    Files.deleteIfExists(copy);
                }

                RunningApp.Response part = app.send(HttpMethod.GET, s.getString("url"), Map.of("Range", "bytes=100-199"), null);
                assertEquals(206, part.status());
                assertEquals(100, part.raw().length());
                assertEquals("bytes 100-199/" + s.getLong("bytes"), part.header("content-range"));
                assertEquals(whole.raw().getBuffer(100, 200), part.raw());
            }

            // one list request returns at most `limit` segments and says whether there are more
            JsonObject first = app.get("/api/recordings/cam?limit=1").json();
            assertEquals(1, first.getJsonArray("segments").size(), first.encode());
            assertTrue(first.getBoolean("more"), first.encode());
            assertEquals(400, app.get("/api/recordings/cam?limit=0").status());
            assertEquals(400, app.get("/api/recordings/cam?limit=100001").status());

            // a time range across the two segments as one MP4: from the keyframe at or before its start (one a second)
            long rangeFrom = listed[0].getJsonObject(0).getLong("startMs") + 1_500;
            long rangeTo = listed[0].getJsonObject(1).getLong("startMs") + 1_000;
            RunningApp.Response clip = app.get("/api/recordings/cam/clip.mp4?from=" + rangeFrom + "&to=" + rangeTo);
            assertEquals(200, clip.status(), clip.body());
            long clipFrom = Long.parseLong(clip.header("x-clip-from"));
            long clipTo = Long.parseLong(clip.header("x-clip-to"));
            assertTrue(clipFrom <= rangeFrom && clipFrom > rangeFrom - 1_040, clipFrom + " for " + rangeFrom);
            assertTrue(clipTo < rangeTo && clipTo >= rangeTo - 80, clipTo + " for " + rangeTo);
            Path clipCopy = Files.createTempFile("argus-clip", ".mp4");
            try {
                Files.write(clipCopy, clip.raw().getBytes());
                assertEquals((clipTo - clipFrom) / 40 + 1, Long.parseLong(run("ffprobe", "-v", "error", "-select_streams", "v:0",
                        "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", clipCopy.toString()).trim()), 2);
                assertEquals("", run("ffmpeg", "-v", "error", "-i", clipCopy.toString(), "-f", "null", "-").trim(), "the clip decodes");
            } finally {
                Files.deleteIfExists(clipCopy);
            }
            assertEquals(404, app.get("/api/recordings/cam/clip.mp4?from=1000&to=2000").status(), "nothing recorded then");
            assertEquals(400, app.get("/api/recordings/cam/clip.mp4?from=1000").status(), "to missing");
            assertEquals(400, app.get("/api/recordings/cam/clip.mp4?from=1000&to=999999999").status(), "longer than an hour");

            JsonObject cam = app.get("/api/recordings").json().getJsonObject("cameras").getJsonObject("cam");
            long received = cam.getLong("received");
            assertTrue(received > 0, cam.encode());
            // packets still in the queue are not yet counted as written: the books balance up to them
            long accounted = cam.getLong("written") + cam.getLong("droppedQueueFull") + cam.getLong("skippedWaitingKeyframe")
                    + cam.getLong("lostToErrors");
            assertTrue(accounted <= received && received - accounted < 50, cam.encode());
            assertEquals(0, cam.getLong("droppedQueueFull") + cam.getLong("lostToErrors"), cam.encode());

            for (String bad : List.of("/api/recordings/cam/2026-11-29/..%2F..%2Fx.mp4", "/api/recordings/cam/..%2F..%2Fetc/passwd",
                    "/api/recordings/cam/2026-11-29/1.txt")) {
                RunningApp.Response r = app.get(bad);
                assertTrue(r.status() == 400 || r.status() == 404, bad + " -> " + r.status() + " " + r.body());
            }
            assertEquals(404, app.get("/api/recordings/cam/2026-11-29/1.mp4").status());
            assertEquals(400, app.get("/api/recordings/cam?from=yesterday").status());
        }
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), String.join(" ", cmd));
        return out;
    }
}
