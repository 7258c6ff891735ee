package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Online training end to end with real parts: the demo model watches the bundled sample video (synthetic shapes, 10
 * fps), the collector keeps frames, the test labels them through the REST API with the scenes' ground truth (or
 * poisoned labels), fine-tunes run (tiny budget: 20 updates of 16 images at 128x128, half a core), and the
 * candidate is evaluated on the held-out frames and swapped in or rejected. Detection messages are read by a real
 * WebSocket client.
 */
@Tag(Tiers.SYSTEM)
@Tag(Tiers.ALONE)
@Budget(seconds = 100)
class OnlineTrainingEndToEndTest {
    static final String CAMERA = "shapes";
    static final String MODEL = "demo";
    /**
     * The camera's rate: a detector call may take 200 ms (a batch overlapping a training pass and the JIT compiling
     * the trainer's code on 2 cores) before a frame is superseded; the batch itself takes a few ms.
     */
    static final int FPS = 5;

    @TempDir
    Path data;

    /**
     * Training settings of both tests: only the schedule differs. Eight labelled frames of five classes cannot meet
     * the swap gate's held-out objects per class, so it is off here (SwapGateTest is its test).
     */
    public static JsonObject training(Path dataDir, String schedule) {
        return new JsonObject().put("enabled", true).put("model", MODEL).put("dataDir", dataDir.toString())
                .put("schedule", schedule).put("backend", "auto").put("iterations", 20).put("batch", 16)
                .put("subdivisions", 4).put("learningRate", 0.002).put("cpuShare", 0.5).put("minTrainFrames", 6)
                .put("minValFrames", 2).put("minValObjectsPerClass", 0)
                .put("collect", new JsonObject().put("intervalMs", 500).put("candidateIntervalMs", 100)
                        .put("minSceneChange", 0.04).put("valEvery", 4));
    }

    static JsonObject config(Path dataDir, String schedule) throws Exception {
        JsonObject json = TestConfig.demo();
        json.getJsonArray("cameras").add(TestConfig.camera(CAMERA, TestMedia.shapes(FPS).toString()));
        // no JPEG snapshots: not this test's concern (PipelineEndToEndTest's), and the GPU host's bundle has no OpenCV
        json.put("snapshots", new JsonObject().put("fps", 0));
        json.put("training", training(dataDir, schedule));
        return json;
    }

    @Test
    void aScheduledFineTuneOnAnnotatedFramesIsSwappedInWithoutAGapAndRolledBack() throws Exception {
        try (RunningApp app = new RunningApp(TestConfig.read(config(data, "*/2 * * * * *")));
             WsClient ws = app.ws("/ws?cameras=" + CAMERA + "&includeEmpty=true")) {
            String base = app.get("/api/models/" + MODEL + "/versions").json().getString("active");
            assertNotNull(base);
            java.util.Queue<JsonObject> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
            app.app.vertx().eventBus().<JsonObject>consumer(io.argus.pipeline.base.Addresses.TRAINING_EVENTS, m -> events.add(m.body()));

            List<JsonObject> frames = collect(app, 6, 2);
            // From here on every frame must come out once, through training, evaluation and the swap. The one
            // legitimate gap is latest-frame-wins under load (a newer frame superseding a waiting one while a batch
            // takes longer than the frame interval, as when other processes hog the 2 cores): the camera counts those.
            long supersededBefore = superseded(app); // read first: a frame superseded before it is older than any kept
            List<JsonObject> untilLabelled = new ArrayList<>(ws.messages); // live latency before any training
            ws.messages.clear();
            for (JsonObject f : frames) {
                RunningApp.Response r = app.call(HttpMethod.PUT, "/api/training/frames/" + f.getString("id") + "/labels",
                        truth(f, false).encode());
                assertEquals(200, r.status(), r.body());
                assertEquals("annotation", r.json().getString("labelSource"));
            }
            JsonObject stats = app.get("/api/training/dataset").json();
            assertEquals(6, stats.getInteger("trainFrames"), stats.encode());
            assertEquals(2, stats.getInteger("valFrames"), stats.encode());

            JsonObject run = awaitRun(app, r -> !"running".equals(r.getString("state")) && !"evaluated".equals(r.getString("state")), 180);
            assertEquals("schedule", run.getString("trigger"), run.encode());
            assertEquals("swapped", run.getString("state"), run.encode());
            assertEquals(20, run.getInteger("iterations"));
            assertEquals(20, run.getJsonArray("loss").size(), "a loss point per iteration");
            assertEquals(20, run.getJsonArray("lossScale").size(), "a loss-scale point per iteration");
            // training.backend auto: CUDA in mixed precision where a GPU is usable, else the CPU in FP32
            boolean gpu = CudaRuntime.available();
            assertEquals(gpu ? "cuda" : "cpu", run.getString("backend"), run.encode());
            assertEquals(gpu ? "mixed" : "fp32", run.getString("precision"), run.encode());
            assertTrue(run.getDouble("lastLossScale") > 0 && run.getLong("skippedSteps") >= 0, run.encode());
            assertTrue(run.getDouble("mapAfter") >= run.getDouble("mapBefore"), run.encode());
            String candidate = run.getString("candidateVersion");
            assertNotEquals(base, candidate);
            System.out.printf("fine-tune run: %s%n", run.getString("reason"));   // the reason gives both mAPs
            // what the GPU run quotes (scripts/gpu/run-live.sh online-e2e): where and how it trained, and live latency
            // (capture to publish) of the frames captured before the run and while it trained
            System.out.printf("fine-tune run: backend %s, precision %s, lastLossScale %s, skippedSteps %d, device %s, "
                            + "%.1f s training (%.1f s computing)%n", run.getString("backend"), run.getString("precision"),
                    run.getValue("lastLossScale"), run.getLong("skippedSteps"), run.getString("device"),
                    run.getDouble("trainSeconds", Double.NaN), run.getDouble("computeSeconds", Double.NaN));
            long startedAt = run.getLong("startedAt"), endedAt = run.getLong("endedAt");
            List<JsonObject> queued = new ArrayList<>(ws.messages); // a copy: the checks below still read the queue
            List<JsonObject> without = new ArrayList<>(untilLabelled), during = new ArrayList<>();
            for (JsonObject m : queued) {
                if (!detections(m)) continue;
                double capture = m.getDouble("captureTime");
                if (capture < startedAt) without.add(m);
                else if (capture <= endedAt) during.add(m);
            }
            System.out.printf("live latency capture->publish without training %s | while training %s%n",
                    latencies(without), latencies(during));

            // progress on the event bus: the run, each iteration's loss and loss scale, the decision, the swap
            List<String> kinds = events.stream().map(e -> e.getString("event")).toList();
            assertTrue(kinds.contains("frame-collected") && kinds.contains("labels-changed"), kinds.toString());
            List<JsonObject> iterations = events.stream().filter(e -> "iteration".equals(e.getString("event"))).toList();
            assertEquals(20, iterations.size());
            for (JsonObject it : iterations) {
                assertTrue(it.getDouble("loss") > 0 && it.getDouble("lossScale") > 0, it.encode());
            }
            assertEquals(List.of("run-started", "evaluated", "swapped", "run-finished"), kinds.stream()
                    .filter(k -> List.of("run-started", "evaluated", "swapped", "run-finished").contains(k)).toList());

            JsonObject versions = app.get("/api/models/" + MODEL + "/versions").json();
            assertEquals(candidate, versions.getString("active"));
            assertEquals(base, versions.getString("previous"));

            // Detection messages: the new version arrives, and around the swap no frame is missing or repeated.
            List<JsonObject> seen = new ArrayList<>();
            awaitMessage(ws, seen, m -> candidate.equals(version(m)), 30);
            for (int i = 0; i < 10; i++) seen.add(ws.await(OnlineTrainingEndToEndTest::detections, java.time.Duration.ofSeconds(10), "detections"));
            long supersededDuring = superseded(app) - supersededBefore;
            long missing = assertIncreasing(seen);
            System.out.printf("%d detection messages from labelling to after the swap: %d frames missing, %d superseded"
                    + " under load%n", seen.size(), missing, supersededDuring);
            assertTrue(missing <= supersededDuring, missing + " frames missing, but the camera superseded only "
                    + supersededDuring + ": frames were lost");
            int firstNew = indexOf(seen, m -> candidate.equals(version(m)));
            assertTrue(firstNew > 0, "messages of the old version came first");
            for (int i = 0; i < seen.size(); i++) {
                assertEquals(i < firstNew ? base : candidate, version(seen.get(i)), "versions switch once, at frame "
                        + seen.get(firstNew).getLong("frame"));
            }
            assertEquals(1, app.get("/api/models").array().getJsonObject(0).getJsonObject("stats").getInteger("swaps"));
            dashboardShowsTheRun(app, run, candidate);

            // Rollback restores the previous version; there is nothing before it.
            RunningApp.Response back = app.call(HttpMethod.POST, "/api/models/" + MODEL + "/rollback", null);
            assertEquals(200, back.status(), back.body());
            assertEquals(base, back.json().getString("version"));
            assertEquals(candidate, back.json().getString("replaced"));
            List<JsonObject> after = new ArrayList<>();
            awaitMessage(ws, after, m -> base.equals(version(m)), 30);
            assertEquals(base, app.get("/api/models/" + MODEL + "/versions").json().getString("active"));
            RunningApp.Response again = app.call(HttpMethod.POST, "/api/models/" + MODEL + "/rollback", null);
            assertEquals(409, again.status(), again.body());
            assertTrue(again.json().getString("error").contains("no previous version"), again.body());
        }
    }

    @Test
    void aFineTuneThatMakesHeldOutMapWorseIsRejectedAndTheOldVersionKeepsServing() throws Exception {
        JsonObject json = config(data, "");
        Path models = TestMedia.home().resolve("config/models");
        // The demo model is also the teacher: collected frames arrive labelled.
        json.getJsonObject("training").put("teacher", new JsonObject().put("cfg", models.resolve("demo.cfg").toString())
                .put("weights", models.resolve("demo.weights").toString())
                .put("names", models.resolve("demo.names").toString()).put("threshold", 0.5));
        try (RunningApp app = new RunningApp(TestConfig.read(json));
             WsClient ws = app.ws("/ws?cameras=" + CAMERA + "&includeEmpty=true")) {
            String base = app.get("/api/models/" + MODEL + "/versions").json().getString("active");
            List<JsonObject> frames = collect(app, 6, 2);
            int teacherBoxes = 0;
            for (JsonObject f : frames) {
                assertEquals("teacher", f.getString("labelSource"), f.encode());
                teacherBoxes += f.getInteger("labelCount");
            }
            assertTrue(teacherBoxes > 0, "the teacher labelled objects");
            // Poison the training frames (every class shifted by one); the held-out frames get the truth.
            for (JsonObject f : frames) {
                boolean poison = "train".equals(f.getString("split"));
                RunningApp.Response r = app.call(HttpMethod.PUT, "/api/training/frames/" + f.getString("id") + "/labels",
                        truth(f, poison).encode());
                assertEquals(200, r.status(), r.body());
            }
            RunningApp.Response started = app.call(HttpMethod.POST, "/api/training/runs", null);
            assertEquals(202, started.status(), started.body());
            assertEquals("manual", started.json().getString("trigger"));
            assertEquals(409, app.call(HttpMethod.POST, "/api/training/runs", null).status(), "one run at a time");

            JsonObject run = awaitRun(app, r -> !"running".equals(r.getString("state")) && !"evaluated".equals(r.getString("state")), 180);
            assertEquals("rejected", run.getString("state"), run.encode());
            assertTrue(run.getDouble("mapAfter") < run.getDouble("mapBefore"), run.encode());
            assertTrue(run.getString("reason").contains("worse"), run.getString("reason"));
            System.out.printf("poisoned fine-tune: %s%n", run.getString("reason"));

            JsonObject versions = app.get("/api/models/" + MODEL + "/versions").json();
            assertEquals(base, versions.getString("active"));
            JsonObject rejected = versions.getJsonArray("versions").getJsonObject(0);
            assertEquals("rejected", rejected.getString("state"));
            assertFalse(rejected.getBoolean("serving"));
            List<JsonObject> seen = new ArrayList<>();
            for (int i = 0; i < 10; i++) seen.add(ws.await(OnlineTrainingEndToEndTest::detections, java.time.Duration.ofSeconds(10), "detections"));
            for (JsonObject m : seen) assertEquals(base, version(m), "the old version keeps serving");
            assertEquals(0, app.get("/api/models").array().getJsonObject(0).getJsonObject("stats").getInteger("swaps"));
            assertEquals(409, app.call(HttpMethod.POST, "/api/models/" + MODEL + "/rollback", null).status());
        }
    }

    /**
     * The dashboard's training panel: the run with its state, held-out mAP before and after and drawn curves, the
     * new version serving in the versions table and on the camera's tile.
     */
    static void dashboardShowsTheRun(RunningApp app, JsonObject run, String candidate) throws Exception {
        if (!Browser.available()) return; // the REST checks above stand; the browser part needs Debian's chromium
        try (Browser b = Browser.open(app.client, "http://127.0.0.1:" + app.port() + "/")) {
            String sel = ".run[data-run=\"" + run.getInteger("id") + "\"]";
            String head = b.waitFor("document.querySelector('" + sel + " .head')?.textContent || ''", 20, "the run in the panel");
            assertTrue(head.contains("swapped") && head.contains("schedule"), head);
            assertTrue(head.contains(String.format(java.util.Locale.ROOT, "%.3f → %.3f", run.getDouble("mapBefore"),
                    run.getDouble("mapAfter"))), head);
            assertTrue(b.cdp.eval("(() => { const c = document.querySelector('" + sel + " canvas');"
                    + " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                    + " for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true; return false; })()")
                    .getBoolean("value"), "loss and loss-scale curves are drawn");
            b.waitFor("document.querySelector('#versions tr.serving')?.dataset.version === '" + candidate + "' ? 'yes' : ''",
                    10, "the new version serving in the versions table");
            b.waitFor("(document.querySelector('.tile[data-camera=\"" + CAMERA + "\"] .model')?.textContent || '').includes('"
                    + candidate + "') ? 'yes' : ''", 10, "the new version on the camera's tile");
            b.cdp.eval("document.getElementById('training').scrollIntoView()");
            b.screenshot("training-run.png");
        }
    }

    /** Waits until the collector kept {@code train} + {@code val} frames; returns that many of each, oldest first. */
    static List<JsonObject> collect(RunningApp app, int train, int val) throws Exception {
        JsonArray[] kept = {new JsonArray()};
        Waits.until(() -> {
            kept[0] = app.get("/api/training/frames").array();
            long t = kept[0].stream().filter(o -> "train".equals(((JsonObject) o).getString("split"))).count();
            return t >= train && kept[0].size() - t >= val;
        }, 120_000, 500);
        JsonArray all = kept[0];
        List<JsonObject> out = new ArrayList<>();
        int t = 0, v = 0;
        for (int i = all.size() - 1; i >= 0; i--) {
            JsonObject f = all.getJsonObject(i);
            boolean isVal = "val".equals(f.getString("split"));
            if (isVal ? v++ < val : t++ < train) out.add(f);
        }
        assertEquals(train + val, out.size(), "frames collected within 120 s: " + all.encode());
        return out;
    }

    /** The ground truth of a collected frame (from its presentation time), or with every class shifted by one. */
    static JsonObject truth(JsonObject frame, boolean poison) {
        double sx = frame.getInteger("width") / (double) SampleVideo.WIDTH;
        double sy = frame.getInteger("height") / (double) SampleVideo.HEIGHT;
        JsonArray labels = new JsonArray();
        for (SampleVideo.Labeled t : SampleVideo.truthsAt(frame.getDouble("pts"))) {
            int c = poison ? (t.classId() + 1) % 5 : t.classId();
            labels.add(new JsonObject().put("classId", c).put("box", new JsonObject().put("x", t.x() * sx)
                    .put("y", t.y() * sy).put("w", t.w() * sx).put("h", t.h() * sy)));
        }
        return new JsonObject().put("labels", labels);
    }

    static JsonObject awaitRun(RunningApp app, Predicate<JsonObject> done, int seconds) throws Exception {
        JsonArray[] runs = {new JsonArray()};
        Waits.waitFor(() -> !(runs[0] = app.get("/api/training/runs").array()).isEmpty() && done.test(runs[0].getJsonObject(0)),
                TimeUnit.SECONDS.toMillis(seconds), 300, () -> {
                    String status;
                    try {
                        status = app.get("/api/training").body();
                    } catch (Exception e) {
                        status = e.toString();
                    }
                    return "a finished run: " + runs[0].encode() + " status " + status;
                });
        return runs[0].getJsonObject(0);
    }

    static boolean detections(JsonObject m) { return "detections".equals(m.getString("type")); }

    /** p50, p99 and the worst of the detection messages' capture-to-publish latency ({@code latency.totalMs}). */
    static String latencies(List<JsonObject> messages) {
        double[] ms = messages.stream().filter(OnlineTrainingEndToEndTest::detections)
                .mapToDouble(m -> m.getJsonObject("latency").getDouble("totalMs")).sorted().toArray();
        if (ms.length == 0) return "(no messages)";
        return String.format(java.util.Locale.ROOT, "p50 %.1f ms p99 %.1f ms max %.1f ms (%d messages)",
                ms[(int) Math.ceil(0.5 * ms.length) - 1], ms[(int) Math.ceil(0.99 * ms.length) - 1], ms[ms.length - 1],
                ms.length);
    }

    static String version(JsonObject m) { return m.getJsonObject("model").getString("version"); }

    /** Collects detection messages into {@code seen} until one matches. */
    static void awaitMessage(WsClient ws, List<JsonObject> seen, Predicate<JsonObject> p, int seconds) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            JsonObject m = ws.messages.poll(200, TimeUnit.MILLISECONDS);
            if (m == null) continue;
            assertNotEquals("dropped", m.getString("type"), "the WebSocket client fell behind: " + m.encode());
            if (!detections(m)) continue;
            seen.add(m);
            if (p.test(m)) return;
        }
        throw new AssertionError("no matching detection message within " + seconds + " s; last: "
                + (seen.isEmpty() ? "none" : seen.get(seen.size() - 1).encode()));
    }

    /** Frame numbers strictly increase (nothing twice, nothing out of order); returns how many are missing. */
    static long assertIncreasing(List<JsonObject> messages) {
        long missing = 0;
        List<String> gaps = new ArrayList<>();
        for (int i = 1; i < messages.size(); i++) {
            long prev = messages.get(i - 1).getLong("frame"), cur = messages.get(i).getLong("frame");
            assertTrue(cur > prev, "frame " + cur + " after " + prev + " (message " + i + " of " + messages.size() + ")");
            missing += cur - prev - 1;
            if (cur > prev + 1) gaps.add((prev + 1) + ".." + (cur - 1) + " (" + version(messages.get(i - 1)).substring(0, 12)
                    + " -> " + version(messages.get(i)).substring(0, 12) + ")");
        }
        if (!gaps.isEmpty()) System.out.println("frames missing: " + gaps);
        return missing;
    }

    static long superseded(RunningApp app) throws Exception {
        return app.camera(CAMERA).getJsonObject("dropped").getLong("superseded");
    }

    static int indexOf(List<JsonObject> ms, Predicate<JsonObject> p) {
        for (int i = 0; i < ms.size(); i++) if (p.test(ms.get(i))) return i;
        return -1;
    }
}
