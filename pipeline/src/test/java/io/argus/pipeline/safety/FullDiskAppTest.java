package io.argus.pipeline.safety;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running app with its training data dir on a tmpfs that fills up: detection goes on (WebSocket detection
 * messages keep coming), the collector logs a warning that names the file and the full disk, a label save through
 * REST answers an error that says so, the frames kept before are still listed, and once space is freed frames are
 * collected again.
 *
 * <p>Prints {@code SAFETY full-disk-app detections_while_full=N warnings=W label_status=500 collected_after_free=K}.
 */
@Tag("safety")
@Budget(seconds = 30)
class FullDiskAppTest {
    static final String CAMERA = "shapes";

    @TempDir
    Path tmp;

    @Test
    void detectionGoesOnWhenTheDataDiskIsFull() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger("argus.training.dataset");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) warnings.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        log.addHandler(capture);
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("data"), "8m")) {
            JsonObject json = TestConfig.demo();
            json.getJsonArray("cameras").add(TestConfig.camera(CAMERA, TestMedia.shapes(5).toString()));
            json.put("snapshots", new JsonObject().put("fps", 0));
            // OnlineTrainingEndToEndTest's collector settings; no schedule: fine-tunes are not this test's concern
            json.put("training", new JsonObject().put("enabled", true).put("model", "demo").put("dataDir", disk.dir.toString())
                    .put("backend", "cpu").put("minTrainFrames", 6).put("minValFrames", 2)
                    .put("collect", new JsonObject().put("intervalMs", 500).put("candidateIntervalMs", 100)
                            .put("minSceneChange", 0.04).put("valEvery", 4)));
            try (RunningApp app = new RunningApp(TestConfig.read(json));
                 WsClient ws = app.ws("/ws?cameras=" + CAMERA + "&includeEmpty=true")) {
                JsonArray before = awaitFrames(app, 2, 120);
                Path filler = disk.dir.resolve("filler");
                disk.fill(filler);
                int warned = warnings.size();
                ws.messages.clear();
                // the collector keeps trying (a candidate every 0.5 s) while frames are detected
                waitFor(() -> ws.messages.stream().filter(m -> "detections".equals(m.getString("type"))).count() >= 10
                                && warnings.subList(warned, warnings.size()).stream()
                                .anyMatch(w -> w.contains("No space left on device")),
                        60_000, "10 detection messages and a disk-full warning while the disk is full");
                long detections = ws.messages.stream().filter(m -> "detections".equals(m.getString("type"))).count();
                List<String> full = warnings.subList(warned, warnings.size()).stream()
                        .filter(w -> w.contains("No space left on device")).toList();

                String id = before.getJsonObject(0).getString("id");
                RunningApp.Response label = app.call(HttpMethod.PUT, "/api/training/frames/" + id + "/labels",
                        new JsonObject().put("labels", new JsonArray().add(new JsonObject().put("classId", 0)
                                .put("box", new JsonObject().put("x", 10).put("y", 10).put("w", 20).put("h", 20))))
                                .encode());
                JsonArray whileFull = app.get("/api/training/frames").array();

                Files.delete(filler);
                JsonArray after = awaitFrames(app, whileFull.size() + 1, 60);
                System.out.printf("SAFETY full-disk-app detections_while_full=%d warnings=%d label_status=%d"
                                + " frames_before=%d frames_while_full=%d collected_after_free=%d%n", detections, full.size(),
                        label.status(), before.size(), whileFull.size(), after.size() - whileFull.size());
                System.out.println("SAFETY full-disk-app warning: " + (full.isEmpty() ? "(none)" : full.get(0)));
                System.out.println("SAFETY full-disk-app label reply: " + label.body());

                assertTrue(detections >= 10, "detection goes on while the disk is full: " + detections + " messages");
                assertTrue(!full.isEmpty() && full.get(0).contains(disk.dir.toString()),
                        "a warning names the file and the full disk: " + warnings);
                assertEquals(500, label.status(), label.body());
                assertTrue(label.body().contains("No space left on device") && label.body().contains(id), label.body());
                assertTrue(whileFull.size() >= before.size(), "the frames kept before are still there");
                assertTrue(after.size() > whileFull.size(), "frames are collected again once space is freed");
            }
        } finally {
            log.removeHandler(capture);
        }
    }

    private static JsonArray awaitFrames(RunningApp app, int n, int seconds) throws Exception {
        JsonArray[] all = {new JsonArray()};
        waitFor(() -> (all[0] = app.get("/api/training/frames").array()).size() >= n, TimeUnit.SECONDS.toMillis(seconds),
                n + " frames collected");
        return all[0];
    }
}
