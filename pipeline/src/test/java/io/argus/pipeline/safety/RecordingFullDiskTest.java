package io.argus.pipeline.safety;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recording onto a disk that fills up (a real tmpfs, the kernel's ENOSPC): the camera's recording stops with an alert
 * (its state says it is failing and why, the status says the disk is filling), detection goes on (WebSocket detection
 * messages keep coming), every packet is still accounted for, and once space is freed the recording resumes by itself
 * (at a keyframe, after the recorder's retry interval) with nothing recorded before lost.
 *
 * <p>Prints {@code SAFETY recording-full-disk written_before=N lost_while_full=L detections_while_full=D written_after=M}.
 * Budget: 60 s (the app's start, a first segment, the recorder's 5 s retry interval: 46.5 s beside a parallel test run, load 6-7).
 */
@Tag("safety")
@Tag(Tiers.SYSTEM)
@Budget(seconds = 60)
class RecordingFullDiskTest {
    static final String CAMERA = "cam";
    /** What the segment file's write (FFmpeg: ENOSPC) or the index's (SQLite) says of a full disk. */
    static final java.util.regex.Pattern FULL = java.util.regex.Pattern.compile("No space left on device|disk is full");

    @TempDir
    Path tmp;

    @Test
    void aFullDiskStopsRecordingWithAnAlertAndDetectionGoesOn() throws Exception {
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("recordings"), "16m")) {
            JsonObject json = TestConfig.demo();
            json.getJsonArray("cameras").add(TestConfig.camera(CAMERA, "sample:")
                    .put("record", new JsonObject().put("mode", "continuous")));
            // no free space kept by retention (it would delete this test's segments to make room); warned under 4 MB
            json.put("recording", new JsonObject().put("dir", disk.dir.toString()).put("segmentSeconds", 2)
                    .put("keepFreeBytes", 0).put("warnFreeBytes", 4L << 20));
            try (RunningApp app = new RunningApp(TestConfig.read(json));
                 WsClient ws = app.ws("/ws?cameras=" + CAMERA + "&includeEmpty=true")) {
                waitFor(() -> camera(app).getLong("segments") >= 1 && camera(app).getLong("written") > 0, 30_000,
                        "a first segment of " + CAMERA + " written");
                JsonObject before = app.get("/api/recordings").json();
                assertEquals(false, before.getBoolean("diskFilling"), before.encode());
                long writtenBefore = camera(app).getLong("written");

                Path filler = disk.dir.resolve("filler");
                disk.fill(filler);
                waitFor(() -> {
                    JsonObject c = camera(app);
                    return c.getString("state").startsWith("failing") && c.getLong("lostToErrors") > 0
                            && FULL.matcher(String.valueOf(c.getString("lastError"))).find();
                }, 15_000, 100, () -> "the recording of " + CAMERA + " failing for the full disk: " + shown(app));
                JsonObject full = app.get("/api/recordings").json();
                assertEquals(true, full.getBoolean("diskFilling"), "the status warns of the disk: " + full.encode());
                assertTrue(full.getLong("freeBytes") < 4L << 20, full.encode());

                // detection goes on while nothing can be recorded
                ws.messages.clear();
                waitFor(() -> ws.messages.stream().filter(m -> "detections".equals(m.getString("type"))).count() >= 10,
                        15_000, "10 detection messages while the disk is full");
                long detectionsWhileFull = ws.messages.stream().filter(m -> "detections".equals(m.getString("type"))).count();
                long lostWhileFull = camera(app).getLong("lostToErrors");

                // room again: the recorder retries at a keyframe and writes on
                Files.delete(filler);
                long[] written = {0};
                waitFor(() -> {
                    JsonObject c = camera(app);
                    written[0] = c.getLong("written");
                    return "recording".equals(c.getString("state")) && written[0] > writtenBefore + 25;
                }, 20_000, 100, () -> "the recording of " + CAMERA + " resumed after space was freed: " + shown(app));

                JsonObject c = camera(app);
                long accounted = c.getLong("written") + c.getLong("droppedQueueFull") + c.getLong("skippedWaitingKeyframe")
                        + c.getLong("lostToErrors");
                assertTrue(c.getLong("received") >= accounted && c.getLong("received") - accounted <= 64,
                        "every packet written, dropped, skipped or lost, or still queued: " + c.encode());
                // the segments recorded before the disk filled are still listed and complete
                assertTrue(app.get("/api/recordings/" + CAMERA).json().getJsonArray("segments").stream()
                        .anyMatch(s -> ((JsonObject) s).getBoolean("complete")), "a complete segment listed");
                System.out.printf("SAFETY recording-full-disk written_before=%d lost_while_full=%d detections_while_full=%d"
                        + " written_after=%d%n", writtenBefore, lostWhileFull, detectionsWhileFull, written[0]);
            }
        }
    }

    /** The camera's recording status for a failure message, or why it could not be read. */
    private static String shown(RunningApp app) {
        try {
            return camera(app).encode();
        } catch (Exception e) {
            return "(status unreadable: " + e + ")";
        }
    }

    private static JsonObject camera(RunningApp app) throws Exception {
        return app.get("/api/recordings").json().getJsonObject("cameras").getJsonObject(CAMERA);
    }
}
