package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live camera recorded for a minute: GStreamer's RTSP server encodes a test pattern as it serves it (H.264, 10 fps,
 * a keyframe each second, as an IP camera does), the whole app records it in 2 s segments with detection on. Over the
 * minute: every packet the source sent in that time is in the segments (ffprobe counts them in the files: the source's
 * rate times the wall time, within a frame per segment), none dropped or lost; the segments' durations (ffprobe, the
 * stream's own clock) add up to the wall time the test measured between the first and the last segment's completion
 * within 1 %, and each is 2 s within a frame.
 *
 * <p>Long (a minute of recording): out of the test command, run by {@code scripts/long-faults.sh}. Budget 120 s (the
 * app's start, the first segment, the minute, the last segment).
 */
@Tag(Tiers.SYSTEM)
@Tag(Tiers.LONG)
@Budget(seconds = 120)
class RecordingLiveRtspTest {
    static final String CAMERA = "live";
    static final int FPS = 10;            // rtsp_live_server.py
    static final long SEGMENT_MS = 2_000;
    static final long MINUTE_MS = 60_000;

    @TempDir
    Path recordings;

    @Test
    void aMinuteOfALiveCameraIsRecordedWholeAndOnTime() throws Exception {
        String missing = LiveRtspCamera.missing();
        assumeTrue(missing == null, missing);
        try (LiveRtspCamera server = LiveRtspCamera.start()) {
            JsonObject json = TestConfig.light();
            json.getJsonArray("cameras").add(TestConfig.camera(CAMERA, server.url("h264", 1)).put("transport", "tcp")
                    .put("decoder", "cpu").put("record", new JsonObject().put("mode", "continuous")));
            json.put("recording", new JsonObject().put("dir", recordings.toString()).put("segmentSeconds", SEGMENT_MS / 1000));
            try (RunningApp app = new RunningApp(TestConfig.read(json))) {
                // the wall time of a segment's completion, seen by polling every 20 ms
                Map<String, Long> completedAt = new LinkedHashMap<>();
                Waits.waitFor(() -> poll(app, completedAt) >= 1, 60_000, 20, "a first complete segment of " + CAMERA);
                String first = completedAt.keySet().iterator().next();
                long firstAt = completedAt.get(first);
                Pace.hold(Duration.ofMillis(MINUTE_MS), "the minute of live video being recorded");
                int before = completedAt.size();
                Waits.waitFor(() -> poll(app, completedAt) > before, 10_000, 20, "the next segment's completion");
                List<String> names = new ArrayList<>(completedAt.keySet());
                String last = names.getLast();
                long wallMs = completedAt.get(last) - firstAt;

                // the segments completed after the first, up to the last: they cover (firstAt, lastAt]
                List<String> window = names.subList(names.indexOf(first) + 1, names.size());
                double seconds = 0;
                long packets = 0;
                for (String name : window) {
                    Path file = recordings.resolve(name);
                    assertTrue(Files.isRegularFile(file), file.toString());
                    double duration = Double.parseDouble(ffprobe(file, "format=duration").trim());
                    long count = Long.parseLong(ffprobe(file, "stream=nb_read_packets").trim());
                    assertEquals(SEGMENT_MS / 1000.0, duration, 1.0 / FPS + 1e-6, name + ": a 2 s segment (a keyframe each second)");
                    seconds += duration;
                    packets += count;
                }
                JsonObject status = app.get("/api/recordings").json().getJsonObject("cameras").getJsonObject(CAMERA);
                System.out.printf("RECORDING live-rtsp segments=%d wall_ms=%d recorded_s=%.3f packets=%d expected=%.0f status=%s%n",
                        window.size(), wallMs, seconds, packets, wallMs / 1000.0 * FPS, status.encode());
                assertTrue(window.size() >= MINUTE_MS / SEGMENT_MS, "segments in the minute: " + window.size());
                assertEquals(wallMs / 1000.0, seconds, wallMs / 1000.0 * 0.01,
                        "the segments' durations add up to the wall time between their completions, within 1 %");
                assertEquals(wallMs / 1000.0 * FPS, packets, window.size() + wallMs / 1000.0 * FPS * 0.01,
                        "every packet of the live source in that time is in the files");
                assertEquals(0L, status.getLong("droppedQueueFull"), status.encode());
                assertEquals(0L, status.getLong("lostToErrors"), status.encode());
            }
        }
    }

    /** Notes the completion time of segments not seen complete before; returns how many are known complete. */
    private static int poll(RunningApp app, Map<String, Long> completedAt) throws Exception {
        JsonArray segments = app.get("/api/recordings/" + CAMERA + "?limit=1000").json().getJsonArray("segments");
        long now = System.currentTimeMillis();
        for (Object o : segments) {
            JsonObject s = (JsonObject) o;
            if (s.getBoolean("complete")) completedAt.putIfAbsent(s.getString("name"), now);
        }
        return completedAt.size();
    }

    private static String ffprobe(Path file, String entry) throws Exception {
        Process p = new ProcessBuilder("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                "-show_entries", entry, "-of", "csv=p=0", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "ffprobe " + file + ": " + out);
        return out;
    }
}
