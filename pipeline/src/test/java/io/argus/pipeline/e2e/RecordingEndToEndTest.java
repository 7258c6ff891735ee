package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A camera with {@code record: {mode: continuous}} through the whole app, with the demo model on the sample video (a
 * keyframe each second, 25 fps), recorded in 2 s segments.
 *
 * <p>Segments: the one connection that feeds detection also writes them; the REST API lists them (a list is bounded:
 * limit, more) and serves each file whole or by byte range; a served segment holds what the index says (ffprobe counts
 * its packets) and decodes on its own; a time range across segments comes as one MP4 by stream copy, from the keyframe
 * before its start, and an export of it (several cameras, in the background, with progress) gives the same file, or
 * with the detector's boxes burned in, an H.264 file of the same pictures; the recorder's books balance; a segment
 * name that is not one is refused.
 *
 * <p>Events with evidence: an event's message refers to its clip (its start less the pre-roll, its end plus the
 * post-roll); the clip, made by stream copy when asked, starts at the keyframe at or before that start, ends with the
 * last picture before that end, holds every picture in between and decodes on its own; byte ranges are served. The best
 * snapshot comes with the object's box drawn (green pixels the clean one lacks) and a crop of the object smaller than
 * the snapshot. The dashboard's review section (headless Chromium, when installed) plays the event from its clip's
 * start, and the playback advances with the detector's boxes drawn over it (screenshot dashboard-review.png).
 *
 * <p>Budget: 90 s (the app's start, two segments, an event ended a second into the recording with its post-roll on
 * disk: 69 s beside a parallel build, load 10).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 90)
class RecordingEndToEndTest {
    static final long FRAME_MS = 40;
    static final long GOP_MS = 1000;

    @Test
    void aRecordedCameraServesItsSegmentsClipsAndItsEventsEvidence() throws Exception {
        JsonObject json = TestConfig.demo();
        json.getJsonArray("cameras").add(TestConfig.camera("cam", "sample:").put("record", new JsonObject()
                .put("mode", "continuous").put("preRollSeconds", 1).put("postRollSeconds", 1)));
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
            RunningApp.Response range = app.get("/api/recordings/cam/clip.mp4?from=" + rangeFrom + "&to=" + rangeTo);
            assertEquals(200, range.status(), range.body());
            long clipFrom = Long.parseLong(range.header("x-clip-from"));
            long clipTo = Long.parseLong(range.header("x-clip-to"));
            assertTrue(clipFrom <= rangeFrom && clipFrom > rangeFrom - 1_040, clipFrom + " for " + rangeFrom);
            assertTrue(clipTo < rangeTo && clipTo >= rangeTo - 80, clipTo + " for " + rangeTo);
            Path clipCopy = Files.createTempFile("argus-clip", ".mp4");
            try {
                Files.write(clipCopy, range.raw().getBytes());
                assertEquals((clipTo - clipFrom) / 40 + 1, Long.parseLong(run("ffprobe", "-v", "error", "-select_streams", "v:0",
                        "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", clipCopy.toString()).trim()), 2);
                assertEquals("", run("ffmpeg", "-v", "error", "-i", clipCopy.toString(), "-f", "null", "-").trim(), "the clip decodes");
            } finally {
                Files.deleteIfExists(clipCopy);
            }
            // an export of the same range, of cam and of a camera with nothing recorded, made in the background
            RunningApp.Response asked = app.call(HttpMethod.POST, "/api/exports", new JsonObject()
                    .put("cameras", new JsonArray().add("cam").add("nope")).put("from", rangeFrom).put("to", rangeTo).encode());
            assertEquals(202, asked.status(), asked.body());
            String export = asked.json().getString("id");
            JsonObject[] status = {null};
            Waits.waitFor(() -> "done".equals((status[0] = app.get("/api/exports/" + export).json()).getString("state")),
                    30_000, 250, () -> "export " + export + " done: " + status[0]);
            assertEquals(1.0, status[0].getDouble("progress"));
            JsonObject camFile = status[0].getJsonArray("files").getJsonObject(0);
            assertEquals(clipFrom, camFile.getLong("from"), "the export's range as the clip's: " + camFile.encode());
            assertEquals(clipTo, camFile.getLong("to"));
            assertTrue(status[0].getJsonArray("files").getJsonObject(1).getString("error").contains("nothing recorded"), status[0].encode());
            RunningApp.Response exported = app.get(camFile.getString("url"));
            assertEquals(200, exported.status(), exported.body());
            assertEquals(range.raw().length(), exported.raw().length(), "the same bytes as the range's clip");
            assertEquals(404, app.get("/api/exports/" + export + "/nope.mp4").status());
            // cancelling: an ended export stays as it ended; bad ids refused; another site's page may not
            RunningApp.Response cancel = app.send(HttpMethod.DELETE, "/api/exports/" + export, Map.of(), null);
            assertEquals(200, cancel.status(), cancel.body());
            assertEquals("done", cancel.json().getString("state"), cancel.body());
            assertEquals(404, app.send(HttpMethod.DELETE, "/api/exports/export-0-0", Map.of(), null).status());
            assertEquals(400, app.send(HttpMethod.DELETE, "/api/exports/..%2Fetc", Map.of(), null).status());
            assertEquals(403, app.send(HttpMethod.DELETE, "/api/exports/" + export, Map.of("Origin", "https://evil.example"), null).status());

            // the same range with the detector's boxes burned in: re-encoded, every picture kept, progress rising to 1
            long boxesAsked = System.nanoTime();
            RunningApp.Response askedBoxes = app.call(HttpMethod.POST, "/api/exports", new JsonObject()
                    .put("cameras", new JsonArray().add("cam")).put("from", rangeFrom).put("to", rangeTo).put("boxes", true).encode());
            assertEquals(202, askedBoxes.status(), askedBoxes.body());
            assertTrue(askedBoxes.json().getBoolean("boxes"), askedBoxes.body());
            String burnedExport = askedBoxes.json().getString("id");
            List<Double> progress = new java.util.ArrayList<>();
            Waits.waitFor(() -> {
                status[0] = app.get("/api/exports/" + burnedExport).json();
                progress.add(status[0].getDouble("progress"));
                return "done".equals(status[0].getString("state"));
            }, 30_000, 50, () -> "export " + burnedExport + " done: " + status[0]);
            for (int i = 1; i < progress.size(); i++) assertTrue(progress.get(i) >= progress.get(i - 1), "progress: " + progress);
            assertEquals(1.0, progress.get(progress.size() - 1));
            assertTrue(status[0].getBoolean("boxes"), status[0].encode());
            JsonObject burned = status[0].getJsonArray("files").getJsonObject(0);
            assertEquals("libopenh264", burned.getString("encoder"), burned.encode());
            assertEquals(burned.getLong("packets"), burned.getLong("pictures"), "every picture of the copy: " + burned.encode());
            int logged = app.get("/api/recordings/cam/detections?from=" + clipFrom + "&to=" + clipTo).json().getJsonArray("frames").size();
            assertTrue(logged == 0 || burned.getLong("picturesWithBoxes") > 0, "boxes drawn where the log has " + logged + " frames: "
                    + burned.encode());
            RunningApp.Response burnedMp4 = app.get(burned.getString("url"));
            assertEquals(200, burnedMp4.status(), burnedMp4.body());
            Path burnedCopy = Files.createTempFile("argus-export-boxes", ".mp4");
            try {
                Files.write(burnedCopy, burnedMp4.raw().getBytes());
                assertEquals("h264," + burned.getLong("pictures"), run("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                        "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", burnedCopy.toString()).trim(), "it plays");
            } finally {
                Files.deleteIfExists(burnedCopy);
            }
            System.out.printf("export with boxes: %s, %d log frames in its range, %d progress readings, %d ms asked to checked%n",
                    burned.encode(), logged, progress.size(), (System.nanoTime() - boxesAsked) / 1_000_000);
            RunningApp.Response notBoolean = app.call(HttpMethod.POST, "/api/exports", new JsonObject().put("cameras", new JsonArray().add("cam"))
                    .put("from", rangeFrom).put("to", rangeTo).put("boxes", "yes").encode());
            assertEquals(400, notBoolean.status(), notBoolean.body());
            assertEquals("boxes: expected true or false, found \"yes\"", notBoolean.json().getString("error"));
            assertEquals(400, app.call(HttpMethod.POST, "/api/exports", "{\"cameras\": [\"../etc\"], \"from\": 1, \"to\": 2}").status());
            assertEquals(400, app.call(HttpMethod.POST, "/api/exports", new JsonObject().put("cameras", new JsonArray().add("cam"))
                    .put("from", 1).put("to", 1 + 3_600_001L).encode()).status(), "longer than an hour");
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

            // an event that ended, with its post-roll written (a segment lasts 2 s, a fragment 1 s) and its pre-roll
            // recorded (the first events come before the recording's first second)
            JsonObject[] event = {null};
            Waits.waitFor(() -> {
                JsonArray segments = app.get("/api/recordings/cam?from=0").json().getJsonArray("segments");
                if (segments.isEmpty()) return false;
                long recordedFrom = segments.getJsonObject(0).getLong("startMs");
                for (Object o : app.get("/api/events?camera=cam&limit=1000").json().getJsonArray("events")) {
                    JsonObject e = (JsonObject) o;
                    JsonObject clip = e.getJsonObject("clip");
                    if (e.getValue("end") != null && clip != null && clip.getLong("from") >= recordedFrom + GOP_MS
                            && clip.getLong("to") < System.currentTimeMillis() - 3_000
                            // and a best snapshot (taken 4 times a second: a short event may have none)
                            && app.get("/api/events/" + e.getString("id") + "/snapshot.jpg?box=false").status() == 200) {
                        event[0] = e;
                        return true;
                    }
                }
                return false;
            }, 75_000, 250, () -> "an event of cam with a snapshot, ended 3 s ago, a second into the recording or later");
            JsonObject e = event[0];
            String id = e.getString("id");
            JsonObject ref = e.getJsonObject("clip");
            assertEquals("/api/events/" + id + "/clip.mp4", ref.getString("url"));
            assertEquals(Math.round(e.getDouble("start")) - 1_000, ref.getLong("from"), "pre-roll: " + e.encode());
            assertEquals(Math.round(e.getDouble("end")) + 1_000 + 1, ref.getLong("to"), "post-roll: " + e.encode());
            assertEquals("/api/events/" + id + "/crop.jpg", e.getString("crop"));

            RunningApp.Response clip = app.get(ref.getString("url"));
            assertEquals(200, clip.status(), clip.body());
            assertEquals("video/mp4", clip.contentType());
            long from = Long.parseLong(clip.header("x-clip-from"));
            long to = Long.parseLong(clip.header("x-clip-to"));
            assertTrue(from <= ref.getLong("from") && from > ref.getLong("from") - GOP_MS - FRAME_MS,
                    "the clip starts at the keyframe at or before " + ref.getLong("from") + ": " + from);
            assertTrue(to < ref.getLong("to") && to >= ref.getLong("to") - 3 * FRAME_MS,
                    "the clip ends with the last picture before " + ref.getLong("to") + ": " + to);
            Path file = Files.createTempFile("argus-clip", ".mp4");
            try {
                Files.write(file, clip.raw().getBytes());
                long packets = Long.parseLong(run("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                        "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file.toString()).trim());
                assertEquals((to - from) / FRAME_MS + 1, packets, 2, "every picture from " + from + " to " + to);
                assertEquals("", run("ffmpeg", "-v", "error", "-i", file.toString(), "-f", "null", "-").trim(), "decodes on its own");
            } finally {
                Files.deleteIfExists(file);
            }
            RunningApp.Response part = app.send(HttpMethod.GET, ref.getString("url"), Map.of("Range", "bytes=0-99"), null);
            assertEquals(206, part.status());
            assertEquals(clip.raw().getBuffer(0, 100), part.raw());

            BufferedImage boxed = picture(app, "/api/events/" + id + "/snapshot.jpg");
            BufferedImage clean = picture(app, "/api/events/" + id + "/snapshot.jpg?box=false");
            BufferedImage crop = picture(app, "/api/events/" + id + "/crop.jpg");
            assertEquals(clean.getWidth(), boxed.getWidth());
            assertTrue(green(boxed) > green(clean) + 40, "the box drawn: green pixels " + green(boxed) + " vs " + green(clean));
            assertTrue(crop.getWidth() < clean.getWidth() || crop.getHeight() < clean.getHeight(),
                    "the crop " + crop.getWidth() + "x" + crop.getHeight() + " of " + clean.getWidth() + "x" + clean.getHeight());
            assertNotEquals(404, app.get("/api/events/" + id + "/crop.jpg").status());
            assertEquals(404, app.get("/api/events/cam-999999-1/clip.mp4").status());
            // the boxes of every frame with a detection are kept for playback: the event's first frame among them
            JsonArray frames = app.get("/api/recordings/cam/detections?from=" + ref.getLong("from") + "&to=" + ref.getLong("to"))
                    .json().getJsonArray("frames");
            assertTrue(frames.stream().anyMatch(f -> ((JsonObject) f).getLong("t") == Math.round(e.getDouble("start"))),
                    "a frame at the event's start " + Math.round(e.getDouble("start")) + " among " + frames.size());
            assertEquals(400, app.get("/api/recordings/cam/detections?from=0&to=" + (10 * 60_000 + 1)).status(), "at most 10 min");

            // the review page plays the event from its clip's start, the boxes of its frames drawn over the playback
            if (Browser.available()) {
                try (Browser browser = Browser.open(app.client, app.app.dashboard().urlWithToken())) {
                    browser.waitFor("document.getElementById('review') && !document.getElementById('review').hidden ? 'shown' : ''",
                            30, "the review section (a recorded camera)");
                    browser.waitFor("(async () => String(await window.reviewEvent('" + id + "')))()", 30, "the event found by the review page");
                    // wall-clock time of the picture shown: segments are 2 s, so playback moves from file to file
                    long started = Long.parseLong(browser.waitFor("""
                            (() => { const v = document.getElementById('review-video');
                              return !v.paused && window.reviewPlayhead() > 0 ? String(Math.round(window.reviewPlayhead())) : ''; })()""",
                            30, "the recording playing"));
                    assertTrue(Math.abs(started - ref.getLong("from")) < 1_500, "played from the clip's start " + ref.getLong("from") + ": " + started);
                    browser.waitFor("""
                            (() => window.reviewPlayhead() > %d + 2500 ? String(window.reviewPlayhead()) : '')()""".formatted(started),
                            30, "playback advancing 2.5 s, across a segment's end");
                    String boxes = browser.waitFor("""
                            (() => { const n = document.querySelectorAll('#review-boxes rect').length;
                              return n > 0 ? String(n) : ''; })()""", 30, "the detector's boxes drawn over the playback",
                            "JSON.stringify(window.reviewState())");
                    browser.waitFor("document.getElementById('review').scrollIntoView() || 'done'", 5, "scrolled");
                    browser.screenshot("dashboard-review.png");
                    System.out.printf("review: event %s playing from %s (epoch ms), %s box(es) drawn%n", id, started, boxes);
                }
            }
            System.out.printf("event %s: clip %d-%d ms (%d ms), crop %dx%d of %dx%d%n", id, from, to, to - from,
                    crop.getWidth(), crop.getHeight(), clean.getWidth(), clean.getHeight());
        }
    }

    private static BufferedImage picture(RunningApp app, String path) throws Exception {
        RunningApp.Response r = app.get(path);
        assertEquals(200, r.status(), path + ": " + r.body());
        assertEquals("image/jpeg", r.contentType());
        return ImageIO.read(new ByteArrayInputStream(r.raw().getBytes()));
    }

    /** Pixels of the drawn box's green (JPEG blurs it: roughly). */
    private static int green(BufferedImage img) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                int rgb = img.getRGB(x, y);
                int r = (rgb >> 16) & 255;
                int g = (rgb >> 8) & 255;
                int b = rgb & 255;
                if (g > 150 && r < 90 && b < 90) n++;
            }
        }
        return n;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), String.join(" ", cmd));
        return out;
    }
}
