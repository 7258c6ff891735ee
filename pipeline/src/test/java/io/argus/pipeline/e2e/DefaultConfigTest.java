package io.argus.pipeline.e2e;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus run} with no arguments on a fresh machine (an empty cache directory): the bundled config/argus.yaml
 * generates its sample video of synthetic shapes and serves the demo model, whose boxes in the dashboard (headless
 * Chromium over the DevTools protocol) match what the scene generator drew. Then a user labels a collected frame in
 * the dashboard's annotator: accepts the proposals, deletes one, draws a new box of another class, saves; the labels
 * land in the dataset store. The sample camera is recorded continuously: an event's clip is served and the review
 * section plays it over its timeline.
 *
 * <p>Budget: 70 s (the first complete 10 s segment comes some 12 s after the first picture).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 70)
class DefaultConfigTest {
    @TempDir
    Path cache;

    @Test
    void theBundledConfigShowsRealDetectionsOfTheSampleSceneAndAFrameCanBeLabelledInTheDashboard() throws Exception {
        Map<String, String> env = Map.of("ARGUS_HTTP_PORT", "0", "ARGUS_HTTP_HOST", "127.0.0.1",
                "ARGUS_CACHE_DIR", cache.toString());
        ArgusApp app = ArgusApp.start(TestMedia.home().resolve("config/argus.yaml"), env).get(300, TimeUnit.SECONDS);
        Vertx client = Vertx.vertx();
        Map<Long, Double> ptsOfFrame = new HashMap<>();
        try (WsClient ws = WsClient.connect(client, app.httpPort(), "/ws?cameras=sample", null, 0)) {
            JsonObject m = ws.await(x -> "detections".equals(x.getString("type")), Duration.ofSeconds(90), "detections of the sample camera");
            assertEquals("sample", m.getString("cameraId"));
            assertEquals("default", m.getJsonObject("model").getString("id"));
            assertEquals(LoadedModel.fileVersion(TestMedia.home().resolve("config/models/demo.weights")),
                    m.getJsonObject("model").getString("version"), "the demo model serves");
            Path video = cache.resolve("sample-shapes-v1.mp4");
            try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
                g.start();
                assertEquals(SampleVideo.WIDTH, g.getImageWidth());
                assertEquals(SampleVideo.HEIGHT, g.getImageHeight());
                assertEquals(SampleVideo.durationMs() * SampleVideo.FPS / 1000, g.getLengthInFrames());
            }
            assumeTrue(Browser.available(), "the dashboard part needs Debian's chromium");
            try (Browser browser = Browser.open(client, "http://127.0.0.1:" + app.httpPort() + "/")) {
                realDetectionsAreDrawn(browser, ws, ptsOfFrame);
                aCollectedFrameIsLabelledInTheAnnotator(browser, app.httpPort());
                theSampleIsRecordedAndReviewed(browser, app.httpPort());
            }
        } finally {
            app.closeAndWait();
            client.close();
        }
    }

    /** A box drawn over a snapshot: class name and pixels of the source frame. */
    record Drawn(String className, double x, double y, double w, double h) {}

    /**
     * Waits for a snapshot whose boxes match the scene generator's ground truth of that frame: every object drawn
     * has a box of its class with IoU >= 0.5, and at least half the boxes are such.
     */
    static void realDetectionsAreDrawn(Browser browser, WsClient ws, Map<Long, Double> ptsOfFrame) throws Exception {
        DashboardTest.Cdp cdp = browser.cdp;
        String[] last = {"no snapshot with boxes"};
        waitFor(() -> {
            for (JsonObject m; (m = ws.messages.poll()) != null; ) {
                if ("detections".equals(m.getString("type"))) ptsOfFrame.put(m.getLong("frame"), m.getDouble("pts"));
            }
            JsonObject shown = new JsonObject(cdp.eval("""
                    (() => { const f = document.querySelector('.tile[data-camera="sample"] .frame');
                      if (!f || !f.dataset.frame) return '{}';
                      const boxes = [...f.querySelectorAll('svg rect.box')].map(r => ({x: +r.getAttribute('x'),
                        y: +r.getAttribute('y'), w: +r.getAttribute('width'), h: +r.getAttribute('height'),
                        label: r.nextElementSibling.textContent}));
                      return JSON.stringify({frame: +f.dataset.frame, boxes,
                        model: document.querySelector('.tile[data-camera="sample"] .model').textContent}); })()""")
                    .getString("value"));
            Long frame = shown.getLong("frame");
            if (frame == null || !ptsOfFrame.containsKey(frame) || shown.getJsonArray("boxes").isEmpty()) return false;
            List<Drawn> drawn = new ArrayList<>();
            for (Object o : shown.getJsonArray("boxes")) {
                JsonObject b = (JsonObject) o;
                drawn.add(new Drawn(b.getString("label").split(" ")[0], b.getDouble("x"), b.getDouble("y"), b.getDouble("w"), b.getDouble("h")));
            }
            List<SampleVideo.Labeled> truth = SampleVideo.truthsAt(ptsOfFrame.get(frame));
            int correct = 0;
            for (Drawn d : drawn) {
                if (truth.stream().anyMatch(t -> t.className().equals(d.className()) && iou(d, t) >= 0.5)) correct++;
            }
            long found = truth.stream().filter(t -> drawn.stream().anyMatch(d -> t.className().equals(d.className())
                    && iou(d, t) >= 0.5)).count();
            last[0] = "frame " + frame + ": " + correct + " of " + drawn.size() + " boxes right, " + found + " of the "
                    + truth.size() + " objects drawn found: " + drawn + " vs " + truth;
            if (!truth.isEmpty() && found == truth.size() && correct * 2 >= drawn.size()) {
                System.out.println("dashboard shows real detections, " + last[0]);
                assertTrue(shown.getString("model").startsWith("default @ sha256:"), shown.getString("model"));
                return true;
            }
            return false;
        }, 90_000, 300, () -> "the dashboard to draw real detections; last: " + last[0]);
        browser.screenshot("dashboard-demo.png");
    }

    static double iou(Drawn d, SampleVideo.Labeled t) {
        double ix = Math.max(0, Math.min(d.x() + d.w(), t.x() + t.w()) - Math.max(d.x(), t.x()));
        double iy = Math.max(0, Math.min(d.y() + d.h(), t.y() + t.h()) - Math.max(d.y(), t.y()));
        double inter = ix * iy;
        return inter / (d.w() * d.h() + t.w() * t.h() - inter);
    }

    /**
     * Opens the first collected frame, accepts its proposals (all but duplicates), deletes one, draws a star, saves;
     * checks the store.
     */
    static void aCollectedFrameIsLabelledInTheAnnotator(Browser browser, int port) throws Exception {
        DashboardTest.Cdp cdp = browser.cdp;
        String id = browser.waitFor("document.querySelector('#training:not([hidden]) .thumb')?.dataset.frame || ''", 60,
                "a collected frame in the dashboard");
        JsonObject before = get(port, "/api/training/frames/" + id);
        int shown = before.getJsonArray("proposals").size();
        List<JsonObject> distinct = before.getJsonArray("proposals").stream().map(JsonObject.class::cast)
                .filter(p -> !p.getBoolean("duplicate", false)).toList();
        int proposals = distinct.size();
        assertTrue(proposals >= 1, "the demo model proposed boxes: " + before.encode());
        cdp.eval("document.querySelector('.thumb[data-frame=\"" + id + "\"]').click()");
        browser.waitFor("document.getElementById('annotator').open && document.querySelectorAll('#ann-svg rect.box.proposal').length === "
                + shown + " && document.getElementById('ann-img').complete ? 'yes' : ''", 10, "the annotator with the proposals");

        cdp.eval("document.getElementById('ann-accept-all').click()");
        assertEquals(proposals, cdp.eval("document.querySelectorAll('#ann-svg rect.box.label').length").getInteger("value"));
        // select the first box with the mouse, delete it
        JsonObject first = distinct.get(0).getJsonObject("box");
        double[] c = page(cdp, first.getDouble("x") + first.getDouble("w") / 2, first.getDouble("y") + first.getDouble("h") / 2);
        mouse(cdp, "mousePressed", c[0], c[1], 1);
        mouse(cdp, "mouseReleased", c[0], c[1], 0);
        assertEquals(1, cdp.eval("document.querySelectorAll('#ann-svg rect.selected').length").getInteger("value"), "a box is selected");
        cdp.eval("document.getElementById('ann-delete-box').click()");
        // draw a star where nothing is
        cdp.eval("(() => { const s = document.getElementById('ann-class'); s.value = '3'; s.dispatchEvent(new Event('change')); })()");
        double[] free = freeSquare(before, 40);
        double[] a = page(cdp, free[0], free[1]), b = page(cdp, free[0] + 40, free[1] + 40);
        mouse(cdp, "mousePressed", a[0], a[1], 1);
        for (int i = 1; i <= 5; i++) mouse(cdp, "mouseMoved", a[0] + (b[0] - a[0]) * i / 5, a[1] + (b[1] - a[1]) * i / 5, 1);
        mouse(cdp, "mouseReleased", b[0], b[1], 0);
        assertEquals(proposals, cdp.eval("document.querySelectorAll('#ann-svg rect.box.label').length").getInteger("value"));
        browser.screenshot("annotator.png");
        cdp.eval("document.getElementById('ann-save').click()");
        browser.waitFor("document.getElementById('ann-message').textContent", 10, "the save to finish");
        assertEquals("saved " + proposals + " label(s)", cdp.eval("document.getElementById('ann-message').textContent").getString("value"));

        JsonObject after = get(port, "/api/training/frames/" + id);
        assertEquals("annotation", after.getString("labelSource"));
        JsonArray labels = after.getJsonArray("labels");
        assertEquals(proposals, labels.size(), "all proposals but one, plus the drawn box");
        JsonObject star = null;
        Set<String> kept = new java.util.HashSet<>();
        for (Object o : labels) {
            JsonObject l = (JsonObject) o;
            JsonObject box = l.getJsonObject("box");
            if ("star".equals(l.getString("className")) && Math.abs(box.getDouble("x") - free[0]) < 3) star = l;
            else kept.add(box.encode());
        }
        assertTrue(star != null, "the drawn star: " + labels.encode());
        JsonObject box = star.getJsonObject("box");
        assertEquals(free[1], box.getDouble("y"), 3);
        assertEquals(40, box.getDouble("w"), 3);
        assertEquals(40, box.getDouble("h"), 3);
        assertFalse(kept.contains(first.encode()), "the deleted proposal is gone");
        String split = after.getString("split").equals("val") ? "val" : "train";
        browser.waitFor("+(document.querySelector('#dataset tr[data-class=\"star\"] td." + split + "')?.textContent || 0) >= 1 ? 'yes' : ''",
                10, "the dataset table counting the star");
        cdp.eval("document.getElementById('annotator').close(); document.getElementById('training').scrollIntoView()");
        browser.waitFor("!document.getElementById('annotator').open && document.getElementById('training')"
                + ".getBoundingClientRect().top < innerHeight ? 'yes' : ''", 10, "the training panel in view");
        browser.screenshot("training-panel.png");
    }

    /** The top-left corner (frame pixels) of a size x size square that touches no proposed box. */
    static double[] freeSquare(JsonObject frame, double size) {
        for (double y = 4; y + size < frame.getInteger("height"); y += 8) {
            for (double x = 4; x + size < frame.getInteger("width"); x += 8) {
                boolean clear = true;
                for (Object o : frame.getJsonArray("proposals")) {
                    JsonObject b = ((JsonObject) o).getJsonObject("box");
                    if (x < b.getDouble("x") + b.getDouble("w") + 4 && x + size + 4 > b.getDouble("x")
                            && y < b.getDouble("y") + b.getDouble("h") + 4 && y + size + 4 > b.getDouble("y")) {
                        clear = false;
                    }
                }
                if (clear) return new double[] {x, y};
            }
        }
        throw new AssertionError("no free place in " + frame.encode());
    }

    /** Frame pixels to page coordinates of the annotator's image. */
    static double[] page(DashboardTest.Cdp cdp, double x, double y) throws Exception {
        JsonObject r = new JsonObject(cdp.eval("""
                (() => { const r = document.getElementById('ann-svg').getBoundingClientRect();
                  const vb = document.getElementById('ann-svg').viewBox.baseVal;
                  return JSON.stringify({left: r.left, top: r.top, sx: r.width / vb.width, sy: r.height / vb.height}); })()""")
                .getString("value"));
        return new double[] {r.getDouble("left") + x * r.getDouble("sx"), r.getDouble("top") + y * r.getDouble("sy")};
    }

    static void mouse(DashboardTest.Cdp cdp, String type, double x, double y, int buttons) throws Exception {
        cdp.call("Input.dispatchMouseEvent", new JsonObject().put("type", type).put("x", x).put("y", y)
                .put("button", "left").put("buttons", buttons).put("clickCount", 1));
    }

    /**
     * The bundled config records the sample camera continuously: a complete segment listed, an ended event's clip
     * served; the dashboard's review section shows the recorded span and the events on its timeline and plays the
     * event (screenshot dashboard-demo-review.png).
     */
    static void theSampleIsRecordedAndReviewed(Browser browser, int port) throws Exception {
        JsonObject[] event = {null};
        waitFor(() -> {
            JsonObject status = get(port, "/api/recordings").getJsonObject("cameras").getJsonObject("sample");
            if (status == null || !"continuous".equals(status.getString("mode"))) return false;
            boolean complete = get(port, "/api/recordings/sample?from=0").getJsonArray("segments").stream()
                    .anyMatch(o -> ((JsonObject) o).getBoolean("complete"));
            for (Object o : get(port, "/api/events?camera=sample&limit=1000").getJsonArray("events")) {
                JsonObject e = (JsonObject) o;
                if (complete && e.getValue("end") != null && e.getJsonObject("clip") != null
                        && e.getJsonObject("clip").getLong("to") < System.currentTimeMillis() - 2_000) {
                    event[0] = e;
                    return true;
                }
            }
            return false;
        }, 40_000, 250, () -> "a complete segment of sample and an ended event with its post-roll recorded");
        HttpResponse<byte[]> clip = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + event[0].getJsonObject("clip").getString("url"))).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, clip.statusCode());
        assertEquals("video/mp4", clip.headers().firstValue("content-type").orElse(""));
        browser.waitFor("window.reviewState && reviewState().segments > 0 && reviewState().events > 0 ? 'yes' : ''", 30,
                "the review section's timeline with the recording and the events");
        browser.cdp.eval("window.reviewEvent('" + event[0].getString("id") + "')");
        browser.waitFor("window.reviewPlayhead() > 0 ? 'yes' : ''", 20, "the event playing in the review section");
        // the 10 min view, where a minute of recording is wide enough to see
        browser.cdp.eval("document.querySelector('#review [data-span=\"600000\"]').click()");
        browser.waitFor("reviewState().loaded && reviewState().loaded.span === 600000 ? 'yes' : ''", 10, "the 10 min view");
        browser.cdp.eval("document.getElementById('review').scrollIntoView()");
        browser.screenshot("dashboard-demo-review.png");
    }

    static JsonObject get(int port, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new JsonObject(r.body());
    }
}
