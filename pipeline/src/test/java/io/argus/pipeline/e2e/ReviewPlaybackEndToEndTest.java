package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's review section in headless Chromium (skipped where it is not installed) over the whole app: the
 * sample camera recorded continuously in 2 s segments, paused for 2 s in between so the recording has a gap.
 *
 * <p>Playback through Media Source Extensions: from a segment before the gap it crosses a segment boundary, jumps the
 * gap and crosses the next boundary with the video element's source never changing (one MediaSource, segments appended
 * in turn); the playhead, sampled in the page every 50 ms, never goes back, never shows a time inside the gap and is not
 * held more than a second at any boundary; what lies behind the playhead is removed from the buffer (kept to 3 s here,
 * 60 s in use); the detector's boxes are drawn over it (screenshot
 * dashboard-review-playback.png in pipeline/target/test-media/). From the present it follows the segment being written
 * (its new bytes appended by byte range). The one-file-at-a-time fallback still crosses a boundary.
 *
 * <p>Timeline: a span button, the wheel (about the pointer: the time under it stays; at the right edge it keeps following
 * the present), a drag (back in time, no longer following) and "now" each change the view, which is fetched again for
 * the new span and drawn with labels that fit it (times of day for 10 min and 1 min, days for 7 days); a list cut by its limit is drawn as far as it goes and the page
 * says so.
 *
 * <p>Budget: 90 s (the app's start, about 10 s of recording with the pause, 15-20 s in the browser: 32-40 s alone on the
 * 2-core machine at load 3-12 with other builds beside it, 43 s beside RecordingEndToEndTest at load 9).
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 90)
class ReviewPlaybackEndToEndTest {
    private static final Pattern TIME_OF_DAY = Pattern.compile("\\d{1,2}:\\d{2}");

    @Test
    void theReviewSectionPlaysAcrossSegmentsAndGapsWithoutReloadingAndZoomsItsTimeline() throws Exception {
        assumeTrue(Browser.available(), "headless Chromium (" + DashboardTest.CHROMIUM + ") is not installed");
        JsonObject json = TestConfig.demo();
        json.getJsonArray("cameras").add(TestConfig.camera("cam", "sample:")
                .put("record", new JsonObject().put("mode", "continuous")));
        json.put("recording", new JsonObject().put("segmentSeconds", 2));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            // three complete segments, 2 s with the camera paused (nothing recorded), then two complete segments more
            JsonArray[] listed = {new JsonArray()};
            Waits.waitFor(() -> complete(listed[0] = segments(app)).size() >= 3, 30_000, 250,
                    () -> "three complete segments of cam, listed: " + listed[0].encode());
            assertEquals(200, app.call(HttpMethod.POST, "/api/cameras/cam/pause", null).status());
            long paused = System.currentTimeMillis();
            Waits.waitFor(() -> System.currentTimeMillis() >= paused + 2_000, 5_000, "2 s with the camera paused");
            assertEquals(200, app.call(HttpMethod.POST, "/api/cameras/cam/resume", null).status());
            Waits.waitFor(() -> {
                        List<JsonObject> done = complete(listed[0] = segments(app));
                        int at = gapAt(done);
                        return at >= 2 && at + 1 < done.size();
                    }, 30_000, 250, () -> "a gap of over a second after two complete segments, two complete after it, listed: "
                    + listed[0].encode());
            List<JsonObject> done = complete(listed[0]);
            int gapAt = gapAt(done);
            JsonObject b1 = done.get(gapAt - 2);
            JsonObject b2 = done.get(gapAt - 1);
            JsonObject a1 = done.get(gapAt);
            JsonObject a2 = done.get(gapAt + 1);
            long gapFrom = b2.getLong("endMs");
            long gapTo = a1.getLong("startMs");
            System.out.printf("review: gap %d-%d (%d ms) between %s and %s%n", gapFrom, gapTo, gapTo - gapFrom,
                    b2.getString("name"), a1.getString("name"));

            try (Browser browser = Browser.open(app.client, app.app.dashboard().urlWithToken())) {
                browser.waitFor("document.getElementById('review') && !document.getElementById('review').hidden ? 'shown' : ''",
                        30, "the review section (a recorded camera)");
                browser.waitFor("window.reviewState().loaded ? 'loaded' : ''", 30, "the timeline's first fetch",
                        "JSON.stringify(window.reviewState())");
                browser.waitFor("document.getElementById('review').scrollIntoView() || 'done'", 5, "scrolled");

                // zoom: the 7-day button, then 10 min; each fetched for its span and labelled to fit
                JsonObject week = zoomTo(browser, 604_800_000L);
                List<String> weekLabels = strings(week.getJsonArray("labels"));
                assertTrue(weekLabels.size() >= 5 && weekLabels.stream().noneMatch(l -> TIME_OF_DAY.matcher(l).find()),
                        "a label per day over 7 days: " + weekLabels);
                JsonObject tenMinutes = zoomTo(browser, 600_000L);
                List<String> minuteLabels = strings(tenMinutes.getJsonArray("labels"));
                assertTrue(minuteLabels.size() >= 5 && minuteLabels.stream().allMatch(l -> TIME_OF_DAY.matcher(l).find()),
                        "times of day over 10 min: " + minuteLabels);
                assertTrue(tenMinutes.getBoolean("follow"), tenMinutes.encode());
                assertTrue(tenMinutes.getInteger("segments") >= done.size(), tenMinutes.encode());
                assertFalse(tenMinutes.getBoolean("segmentsCut"), tenMinutes.encode());
                // the recorded time is drawn from joined spans: the gap makes two, whatever the segments' count
                assertEquals(2, tenMinutes.getInteger("spans"), tenMinutes.encode());
                // lists cut by their limit (made small here) are drawn as far as they go, and the page says so
                browser.waitFor("window.reviewLimits(1, 2) || 'set'", 5, "small limits");
                JsonObject cut = zoomTo(browser, 3_600_000L);
                assertTrue(cut.getBoolean("segmentsCut") && cut.getInteger("spans") == 1 && cut.getInteger("segments") == 1,
                        cut.encode());
                assertTrue(cut.getInteger("events") <= 2, cut.encode());
                assertTrue(cut.getString("note").contains("the list stops at 1 spans"), cut.encode());
                browser.waitFor("window.reviewLimits(10000, 1000) || 'set'", 5, "the usual limits");
                assertFalse(zoomTo(browser, 600_000L).getBoolean("segmentsCut"));

                // the wheel zooms in about the pointer (a quarter of the way in from the left): that time stays put
                JsonObject box = rect(browser);
                double y = box.getDouble("top") + box.getDouble("height") / 2;
                double px = box.getDouble("left") + box.getDouble("width") / 4;
                JsonObject view = state(browser);   // following: the view slides with the present
                long underPointer = view.getLong("from") + view.getLong("span") / 4;
                browser.cdp.call("Input.dispatchMouseEvent", new JsonObject().put("type", "mouseWheel").put("x", px).put("y", y)
                        .put("deltaX", 0).put("deltaY", -300));
                JsonObject zoomed = settled(browser, "s.span < 600000 && !s.follow", "a narrower span after the wheel");
                long span = zoomed.getLong("span");
                assertEquals(600_000 * Math.exp(-0.6), span, 2_000, zoomed.encode());
                assertEquals(underPointer, zoomed.getLong("from") + span / 4, 1_500, "the time under the pointer: " + zoomed.encode());

                // a drag to the right goes back in time by the distance's share of the span
                browser.cdp.call("Input.dispatchMouseEvent", mouse("mousePressed", px + 300, y));
                browser.cdp.call("Input.dispatchMouseEvent", mouse("mouseMoved", px + 400, y));
                browser.cdp.call("Input.dispatchMouseEvent", mouse("mouseMoved", px + 500, y));
                browser.cdp.call("Input.dispatchMouseEvent", mouse("mouseReleased", px + 500, y));
                long back = Math.round(200 / box.getDouble("width") * span);
                JsonObject dragged = settled(browser, "s.to < " + (zoomed.getLong("to") - back / 2), "the view moved back by the drag");
                assertEquals(zoomed.getLong("to") - back, dragged.getLong("to"), 1_000, dragged.encode());
                assertFalse(dragged.getBoolean("follow"), dragged.encode());
                assertEquals(0, dragged.getInteger("appended"), "a drag plays nothing: " + dragged.encode());
                // "now": following the present again, with the 10-minute span; the wheel at the right edge zooms in to
                // the shortest span (a minute) and keeps following
                browser.waitFor("document.getElementById('review-now').click() || 'clicked'", 5, "now");
                zoomTo(browser, 600_000L);
                double edge = box.getDouble("left") + box.getDouble("width") - 1;
                for (int i = 0; i < 4; i++) {
                    browser.cdp.call("Input.dispatchMouseEvent", new JsonObject().put("type", "mouseWheel").put("x", edge).put("y", y)
                            .put("deltaX", 0).put("deltaY", -300));
                }
                JsonObject minute = settled(browser, "s.span === 60000 && s.follow", "the shortest span, following");
                assertTrue(strings(minute.getJsonArray("labels")).stream().allMatch(l -> TIME_OF_DAY.matcher(l).find()), minute.encode());

                // playback from the first of the two segments before the gap, sampled in the page every 50 ms
                long from = b1.getLong("startMs") + 500;
                browser.waitFor("""
                        (() => { window.reviewKeepBehind(3); const v = document.getElementById('review-video'); window.sampled = [];
                          window.sampler = setInterval(() => { const s = window.reviewState();
                            window.sampled.push([performance.now(), window.reviewPlayhead(), v.src, s.appended, s.jumps || 0]); }, 50);
                          window.reviewPlay(%d); return 'playing'; })()""".formatted(from), 5, "playback asked for");
                browser.waitFor("window.reviewPlayhead() > %d ? 'crossed' : ''".formatted(b2.getLong("startMs") + 300), 30,
                        "playback across the first boundary", "JSON.stringify(window.reviewState())");
                browser.waitFor("""
                        (() => { const n = document.querySelectorAll('#review-boxes rect').length;
                          return n > 0 ? String(n) : ''; })()""", 30, "the detector's boxes drawn over the playback",
                        "JSON.stringify(window.reviewState())");
                browser.screenshot("dashboard-review-playback.png");
                browser.waitFor("window.reviewPlayhead() > %d ? 'crossed' : ''".formatted(a2.getLong("startMs") + 500), 30,
                        "playback over the gap and across the boundary after it", "JSON.stringify(window.reviewState())");
                JsonObject played = settled(browser, "s.buffered.length > 0 && s.buffered[0][0] >= window.reviewPlayhead() - 4500",
                        "the buffer bounded: at most 3 s (and a second's slack) kept behind the playhead");
                JsonArray samples = new JsonArray(browser.cdp.eval("clearInterval(window.sampler) || JSON.stringify(window.sampled)")
                        .getString("value"));
                assertTrue(played.getBoolean("mse"), "MSE in use: " + played.encode());
                assertTrue(played.getString("mime").startsWith("video/mp4; codecs=\"avc1."), played.encode());
                assertTrue(played.getInteger("appended") >= 4, "four segments appended: " + played.encode());
                assertTrue(played.getInteger("jumps") >= 1, "the gap jumped: " + played.encode());
                Playback p = Playback.of(samples, from);
                assertEquals(1, p.sources.size(), "one source for the element all along: " + p.sources);
                assertTrue(p.sources.get(0).startsWith("blob:"), p.sources.toString());
                assertTrue(p.maxBackMs <= 1, "the playhead never went back (" + p.maxBackMs + " ms)");
                assertTrue(p.inGap(gapFrom, gapTo) == 0, p.inGap(gapFrom, gapTo) + " samples inside the gap " + gapFrom + "-" + gapTo);
                long[] boundaries = {b2.getLong("startMs"), gapTo, a2.getLong("startMs")};
                long[] before = {b1.getLong("endMs"), gapFrom, a1.getLong("endMs")};
                for (int i = 0; i < boundaries.length; i++) {
                    long held = p.heldAcross(before[i], boundaries[i]);
                    System.out.printf("review: boundary %d (%d -> %d): held %d ms%n", i, before[i], boundaries[i], held);
                    assertTrue(held < 1_000, "held " + held + " ms at the boundary " + before[i] + " -> " + boundaries[i]);
                }
                System.out.printf("review: MSE %s, %d segments appended, %d gap jump(s), %d samples, longest hold %d ms%n",
                        played.getString("mime"), played.getInteger("appended"), played.getInteger("jumps"), samples.size(), p.maxHeldMs);

                // the present: the segment being written is followed by byte ranges, in the same MediaSource
                // (between one segment's close and the next one's open, at a keyframe, none is: asked until one is)
                JsonObject[] writing = {null};
                Waits.waitFor(() -> (writing[0] = segments(app).stream().map(o -> (JsonObject) o)
                        .filter(s -> !s.getBoolean("complete")).findFirst().orElse(null)) != null, 10_000, 50, "a segment being written");
                JsonObject open = writing[0];
                long live = Math.max(open.getLong("startMs"), System.currentTimeMillis() - 1_000);
                browser.waitFor("window.reviewPlay(%d) && 'asked'".formatted(live), 5, "playback of the present asked for");
                JsonObject followed = settled(browser, "s.followed > 0 && window.reviewPlayhead() > " + (open.getLong("startMs") + 2_300),
                        "playback following the segment being written into the next");
                assertEquals(p.sources.get(0), browser.cdp.eval("document.getElementById('review-video').src").getString("value"),
                        "the same source after a seek: " + followed.encode());

                // the fallback: one file at a time, the next loaded when one ends
                browser.waitFor("window.reviewUseMse(false) || window.reviewPlay(%d) && 'asked'".formatted(b1.getLong("startMs") + 1_000),
                        5, "playback without MSE asked for");
                JsonObject file = settled(browser, "s.mse === false && window.reviewPlayhead() > " + (b2.getLong("startMs") + 300),
                        "the fallback across a boundary");
                String src = browser.cdp.eval("document.getElementById('review-video').src").getString("value");
                assertTrue(src.contains("/api/recordings/cam/"), src + " " + file.encode());
            }
        }
    }

    /** Clicks the span button of {@code span} ms and waits for that span fetched and drawn. */
    private static JsonObject zoomTo(Browser browser, long span) throws Exception {
        long fetches = state(browser).getLong("fetches");
        browser.waitFor("document.querySelector('#review-spans [data-span=\"%d\"]').click() || 'clicked'".formatted(span), 5, "span " + span);
        return settled(browser, "s.span === %d && s.fetches > %d".formatted(span, fetches), "the timeline over " + span + " ms");
    }

    /** Waits for {@code condition} on the page's state {@code s} and for the view's own span fetched; that state. */
    private static JsonObject settled(Browser browser, String condition, String what) throws Exception {
        return new JsonObject(browser.waitFor("""
                (() => { const s = window.reviewState();
                  return %s && s.loaded && s.loaded.span === s.span && (s.follow || s.loaded.from === s.from) ? JSON.stringify(s) : ''; })()"""
                .formatted(condition), 30, what, "JSON.stringify(window.reviewState())"));
    }

    private static JsonObject state(Browser browser) throws Exception {
        return new JsonObject(browser.cdp.eval("JSON.stringify(window.reviewState())").getString("value"));
    }

    private static JsonObject rect(Browser browser) throws Exception {
        return new JsonObject(browser.cdp.eval("JSON.stringify(document.getElementById('timeline').getBoundingClientRect())")
                .getString("value"));
    }

    private static JsonObject mouse(String type, double x, double y) {
        return new JsonObject().put("type", type).put("x", x).put("y", y).put("button", "left")
                .put("buttons", type.equals("mouseReleased") ? 0 : 1).put("clickCount", 1);
    }

    private static JsonArray segments(RunningApp app) throws Exception {
        return app.get("/api/recordings/cam?from=0").json().getJsonArray("segments");
    }

    private static List<JsonObject> complete(JsonArray segments) {
        return segments.stream().map(o -> (JsonObject) o).filter(s -> s.getBoolean("complete")).toList();
    }

    /** The index of the first segment after a gap of over a second, or -1. */
    private static int gapAt(List<JsonObject> done) {
        for (int i = 1; i < done.size(); i++) {
            if (done.get(i).getLong("startMs") - done.get(i - 1).getLong("endMs") > 1_000) return i;
        }
        return -1;
    }

    private static List<String> strings(JsonArray a) {
        return a.stream().map(String::valueOf).toList();
    }

    /** The page's samples [ms, playhead, src, appended, jumps] from the first at the start asked for. */
    private record Playback(List<double[]> times, List<String> sources, long maxBackMs, long maxHeldMs) {
        static Playback of(JsonArray samples, long from) {
            List<double[]> times = new ArrayList<>();
            List<String> sources = new ArrayList<>();
            for (Object o : samples) {
                JsonArray s = (JsonArray) o;
                double playhead = s.getDouble(1);
                if (times.isEmpty() && Math.abs(playhead - from) > 1_000) continue;   // before playback began
                // 0: no picture to show at that moment (the element waits for data, a loaded machine's fetch behind):
                // a stall, counted as the playhead held until it moves on, not a jump back
                if (playhead <= 0) continue;
                times.add(new double[]{s.getDouble(0), playhead});
                if (!sources.contains(s.getString(2))) sources.add(s.getString(2));
            }
            assertTrue(times.size() > 20, "samples of the playback: " + samples.encode());
            long back = 0;
            long held = 0;
            double heldSince = times.get(0)[0];
            for (int i = 1; i < times.size(); i++) {
                back = Math.max(back, Math.round(times.get(i - 1)[1] - times.get(i)[1]));
                if (times.get(i)[1] > times.get(i - 1)[1] + 0.5) heldSince = times.get(i)[0];
                held = Math.max(held, Math.round(times.get(i)[0] - heldSince));
            }
            return new Playback(times, sources, back, held);
        }

        /** Samples that showed a time inside (from, to), a margin of 100 ms at each end. */
        long inGap(long from, long to) {
            return times.stream().filter(t -> t[1] > from + 100 && t[1] < to - 100).count();
        }

        /**
         * The page's time from the last sample before {@code end} (less a frame) to the first at or after {@code next}
         * (plus a frame), less the media time played across the boundary: how long the playhead was held there.
         */
        long heldAcross(long end, long next) {
            double leftAt = -1;
            double arrivedAt = -1;
            for (double[] t : times) {
                if (t[1] <= end - 40) leftAt = t[0];
                if (arrivedAt < 0 && t[1] >= next + 40) arrivedAt = t[0];
            }
            assertTrue(leftAt >= 0 && arrivedAt > leftAt, "samples on both sides of " + end + " -> " + next);
            return Math.round(arrivedAt - leftAt - 80);
        }
    }
}
