package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The motion and events modes through the whole app: only what is asked for is recorded, with its rolls.
 *
 * <p>Motion: a camera looping an 8 s file that is still but for a white square crossing it from 4 s to 5 s, recorded
 * with 1 s rolls: one recording per loop (8 s apart), from the keyframe at 3 s to the keyframe after a second after
 * the motion (and its fading from the running average), 4 s each; the square is in it; the rest is counted as not recorded.
 * Events: the sample camera recorded only around its events: an event's clip is served from its pre-roll on. The
 * motion camera records into a second storage directory, listed and served as the main one's. The recorded cameras'
 * events are kept with their recordings and listed newest first, bounded.
 *
 * <p>Budget: 90 s (the app's start, two loops of the file and a second recording, an ended event of the sample: 41 s
 * beside a parallel build).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 90)
class RecordingModesEndToEndTest {
    static final long LOOP_MS = 8_000;

    @TempDir
    Path second;

    @Test
    void onlyMotionAndEventsAreRecordedWithTheirRolls() throws Exception {
        Path still = TestMedia.stillWithMotion(8, 4, 5);
        JsonObject json = TestConfig.demo();
        json.getJsonArray("cameras")
                .add(TestConfig.camera("still", still.toString()).put("loop", true).put("record", new JsonObject()
                        .put("mode", "motion").put("preRollSeconds", 1).put("postRollSeconds", 1).put("storage", "second")))
                .add(TestConfig.camera("cam", "sample:").put("record", new JsonObject()
                        .put("mode", "events").put("preRollSeconds", 1).put("postRollSeconds", 1)));
        // a history of 3 events: the older ones of the sample camera are only in the recording's event log
        json.put("events", new JsonObject().put("history", 3));
        json.put("recording", new JsonObject().put("segmentSeconds", 10).put("storage", new JsonArray()
                .add(new JsonObject().put("name", "second").put("dir", second.toString()).put("keepFreeBytes", 0).put("warnFreeBytes", 0))));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            List<JsonObject> done = new ArrayList<>();
            Waits.waitFor(() -> {
                done.clear();
                for (Object o : app.get("/api/recordings/still").json().getJsonArray("segments")) {
                    if (((JsonObject) o).getBoolean("complete")) done.add((JsonObject) o);
                }
                return done.size() >= 2;
            }, 60_000, 250, () -> "two recordings of motion, found " + done);
            for (int i = 0; i < done.size(); i++) {
                JsonObject s = done.get(i);
                long duration = s.getLong("endMs") - s.getLong("startMs");
                // 1 s pre-roll from the keyframe at 3 s, 1 s of motion, its fading, 1 s post-roll, to the keyframe at 7 s
                assertTrue(duration >= 2_400 && duration <= 4_600, "a recording of the motion only: " + s.encode());
                if (i > 0) {
                    long apart = s.getLong("startMs") - done.get(i - 1).getLong("startMs");
                    assertEquals(LOOP_MS, apart, 400, "one recording per loop of the file: " + done);
                }
                assertTrue(whitePixels(app, s) > 1_000, "the square is in the recording: " + s.encode());
                assertTrue(Files.isRegularFile(second.resolve(s.getString("name"))), "in its camera's storage directory: " + s.encode());
            }
            // the timeline's view of it: one span per recording (4 s apart from the next), the one being written last
            JsonArray spans = app.get("/api/recordings/still/spans?from=0").json().getJsonArray("spans");
            assertTrue(spans.size() >= done.size(), spans.encode());
            for (int i = 0; i < done.size(); i++) {
                assertEquals(done.get(i).getLong("startMs"), spans.getJsonArray(i).getLong(0), spans.encode());
                assertEquals(done.get(i).getLong("endMs"), spans.getJsonArray(i).getLong(1), spans.encode());
            }
            assertTrue(app.get("/api/recordings/still/spans?from=0&limit=1").json().getBoolean("more"));
            assertEquals(400, app.get("/api/recordings/still/spans?limit=0").status());
            assertEquals(400, app.get("/api/recordings/still/spans?from=2&to=1").status());
            assertEquals(400, app.get("/api/recordings/..%2Fx/spans").status());
            JsonObject status = app.get("/api/recordings").json().getJsonObject("cameras").getJsonObject("still");
            System.out.println("motion recordings: " + done.stream().map(s -> s.getLong("startMs") + "+" + (s.getLong("endMs")
                    - s.getLong("startMs")) + " ms").toList() + "; recorder: " + status.encode());
            assertEquals("motion", status.getString("mode"), status.encode());
            JsonArray storage = app.get("/api/recordings").json().getJsonArray("storage");
            assertEquals("main", storage.getJsonObject(0).getString("name"), storage.encode());
            assertEquals("second", storage.getJsonObject(1).getString("name"), storage.encode());
            assertTrue(storage.getJsonObject(1).getBoolean("open") && storage.getJsonObject(1).getLong("bytes") > 0, storage.encode());
            assertTrue(status.getLong("notRecorded") > 0, "the still seconds were not recorded: " + status.encode());
            long accounted = status.getLong("written") + status.getLong("droppedQueueFull") + status.getLong("skippedWaitingKeyframe")
                    + status.getLong("lostToErrors") + status.getLong("notRecorded") + status.getLong("preRollPackets");
            long received = status.getLong("received");
            assertTrue(accounted <= received && received - accounted < 50, "the books balance up to the queue: " + status.encode());
            assertEquals(0, status.getLong("droppedQueueFull") + status.getLong("lostToErrors"), status.encode());

            // events: an event whose pre-roll began once the camera streamed (its first event comes with its first
            // pictures: 1.5 s after that), ended with its post-roll on disk
            JsonObject[] event = {null};
            Waits.waitFor(() -> {
                // from the recording's event log: the history keeps only the last 3
                JsonArray all = app.get("/api/recordings/cam/events?from=0&limit=1000").json().getJsonArray("events");
                double first = all.stream().mapToDouble(o -> ((JsonObject) o).getDouble("start")).min().orElse(Double.MAX_VALUE);
                for (Object o : all) {
                    JsonObject e = (JsonObject) o;
                    JsonObject clip = e.getJsonObject("clip");
                    if (e.getValue("end") != null && clip != null && clip.getLong("from") > first + 1_500
                            && clip.getLong("to") < System.currentTimeMillis() - 3_000) {
                        event[0] = e;
                        return true;
                    }
                }
                return false;
            }, 60_000, 250, () -> "an ended event of cam");
            JsonObject ref = event[0].getJsonObject("clip");
            RunningApp.Response clip = app.get(ref.getString("url"));
            assertEquals(200, clip.status(), clip.body());
            long from = Long.parseLong(clip.header("x-clip-from"));
            assertTrue(from <= ref.getLong("from") && from > ref.getLong("from") - 1_000 - 40,
                    "the event's recording starts at the keyframe at or before its pre-roll: " + from + " for " + ref.encode());
            JsonObject cam = app.get("/api/recordings").json().getJsonObject("cameras").getJsonObject("cam");
            assertEquals("events", cam.getString("mode"), cam.encode());

            // the event is kept with the recording (the timeline of the past, beyond the in-memory history)
            String id = event[0].getString("id");
            String stored = "/api/recordings/cam/events?from=" + (ref.getLong("from") - 60_000) + "&to=" + System.currentTimeMillis();
            JsonObject[] kept = {null};
            Waits.waitFor(() -> (kept[0] = app.get(stored).json()).getJsonArray("events").stream()
                    .anyMatch(o -> id.equals(((JsonObject) o).getString("id")) && ((JsonObject) o).getValue("end") != null),
                    10_000, 100, () -> "event " + id + " ended in the event log: " + kept[0]);
            JsonArray newestFirst = kept[0].getJsonArray("events");
            for (int i = 1; i < newestFirst.size(); i++) {
                assertTrue(newestFirst.getJsonObject(i - 1).getDouble("start") >= newestFirst.getJsonObject(i).getDouble("start"),
                        "newest first: " + newestFirst.encode());
            }
            JsonObject one = app.get(stored + "&limit=1").json();
            assertEquals(1, one.getJsonArray("events").size(), one.encode());
            assertEquals(newestFirst.size() > 1, one.getBoolean("more"), one.encode());
            // an event the history forgot (it keeps 3) is still on record, and its clip still served
            JsonObject[] forgotten = {null};
            Waits.waitFor(() -> {
                java.util.Set<String> recent = new java.util.HashSet<>();
                for (Object o : app.get("/api/events?limit=1000").json().getJsonArray("events")) recent.add(((JsonObject) o).getString("id"));
                for (Object o : app.get(stored).json().getJsonArray("events")) {
                    JsonObject e = (JsonObject) o;
                    if (!recent.contains(e.getString("id")) && e.getValue("end") != null && e.getJsonObject("clip") != null
                            && e.getJsonObject("clip").getLong("from") > ref.getLong("from") - 60_000) {
                        forgotten[0] = e;
                        return true;
                    }
                }
                return false;
            }, 30_000, 250, "an ended event the history no longer holds");
            RunningApp.Response old = app.get(forgotten[0].getJsonObject("clip").getString("url"));
            assertEquals(200, old.status(), "the clip of " + forgotten[0].getString("id") + ": " + old.body());
            assertEquals(404, app.get("/api/events/cam-999999-1/clip.mp4").status(), "neither recent nor kept");
            assertEquals(400, app.get("/api/recordings/cam/events?limit=0").status());
            assertEquals(400, app.get("/api/recordings/cam/events?limit=1001").status());
            assertEquals(400, app.get("/api/recordings/cam/events?from=2&to=1").status());
            assertEquals(400, app.get("/api/recordings/cam/events?from=yesterday").status());
            assertEquals(400, app.get("/api/recordings/..%2Fetc/events").status());
        }
    }

    /** White pixels (grey level over 200) in the picture 1.5 s into segment {@code s}: the square at 4.5 s of the loop. */
    static long whitePixels(RunningApp app, JsonObject s) throws Exception {
        RunningApp.Response whole = app.get(s.getString("url"));
        assertEquals(200, whole.status(), whole.body());
        Path copy = Files.createTempFile("argus-segment", ".mp4");
        try {
            Files.write(copy, whole.raw().getBytes());
            Process p = new ProcessBuilder("ffmpeg", "-v", "error", "-ss", "1.5", "-i", copy.toString(), "-frames:v", "1",
                    "-f", "rawvideo", "-pix_fmt", "gray", "-").start();
            byte[] grey = p.getInputStream().readAllBytes();
            assertEquals(0, p.waitFor(), new String(p.getErrorStream().readAllBytes()));
            long white = 0;
            for (byte b : grey) if ((b & 0xff) > 200) white++;
            return white;
        } finally {
            Files.deleteIfExists(copy);
        }
    }
}
