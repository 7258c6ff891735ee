package io.argus.pipeline.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.http.HttpMethod;
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
 * Tracking on the dashboard, in headless Chromium: the demo model on the sample video (shapes the tracker follows),
 * one camera with a zone over the left half of the picture, a normalized one (fractions of the frame) in its bottom
 * right corner and a line across its middle. The page draws them over the live view (scaled with the picture, the
 * line's arrow on its "in" side), labels the boxes with their track ids and draws their trails, fills the events list
 * from the /ws events (with best snapshots) and shows the counters.
 *
 * <p>Then, with real mouse input, a user drags a corner of a zone, draws a new zone and a line, and saves: the
 * server's lists (GET /api/cameras/cam/zones and /lines) hold them. A zone of two points is refused by the server, and
 * the page shows the server's words; deleting it and the new line, the user saves again. The server wants a token:
 * the page gets in with the cookie the dashboard link sets, PUTs included.
 *
 * <p>The server keeps REST changes to zones and lines in its cache directory (scenes/), so the test has one of its own,
 * with the sample video linked in from the shared test cache rather than generated again.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 30)
class TrackingDashboardTest {
    private static final String TOKEN = "tracking-dashboard-test-token";
    private static final int W = SampleVideo.WIDTH;
    private static final int H = SampleVideo.HEIGHT;
    private static final String TILE = ".tile[data-camera=\"cam\"]";

    @TempDir
    Path cache;

    @Test
    void zonesLinesTracksEventsAndCountersAreShownAndZonesDrawnInThePageAreSaved() throws Exception {
        assumeTrue(Browser.available(), "needs Debian's chromium");
        long start = System.nanoTime();
        try (RunningApp app = new RunningApp(TestConfig.read(config(cache)));
             Browser browser = Browser.open(app.client, app.app.dashboard().urlWithToken())) {
            PageInput input = new PageInput(browser.cdp);
            zoneAndLineAreDrawnOverTheLiveView(browser);
            lap("zone and line drawn", start);
            boxesShowTrackIdsAndTrailsEndAtTheirAnchors(browser);
            lap("track ids and trails", start);
            eventsListFillsNewestFirstWithSnapshots(browser, app);
            lap("events with a snapshot", start);
            countersShowTheServersCounts(browser, app);
            lap("counters", start);
            browser.screenshot("dashboard-tracking.png");
            zonesAndLinesEditedWithTheMouseAreSaved(browser, input, app);
            lap("zones and lines edited and saved", start);
            browser.screenshot("dashboard-zone-editor.png");
            aZoneTheServerRefusesShowsItsReason(browser, input, app);
            lap("refusal shown", start);
        }
    }

    /** The demo model on the sample video; zones over the left half and (normalized) the bottom right quarter, a line across the middle. */
    private static JsonObject config(Path cache) throws Exception {
        Path video = SampleVideo.ensure(TestMedia.dir().resolve("cache"));
        Files.createSymbolicLink(cache.resolve(video.getFileName()), video);
        JsonObject json = TestConfig.demo().put("cacheDir", cache.toString());
        json.getJsonObject("http").put("token", TOKEN);
        JsonObject left = new JsonObject().put("id", "left")
                .put("polygon", points(0, 0, W / 2, 0, W / 2, H, 0, H));
        JsonObject corner = new JsonObject().put("id", "corner").put("normalized", true)
                .put("polygon", new JsonArray().add(new JsonArray().add(0.75).add(0.5)).add(new JsonArray().add(1.0).add(0.5))
                        .add(new JsonArray().add(1.0).add(1.0)).add(new JsonArray().add(0.75).add(1.0)));
        JsonObject middle = new JsonObject().put("id", "middle").put("from", point(0, H / 2)).put("to", point(W, H / 2));
        json.getJsonArray("cameras").add(TestConfig.camera("cam", "sample:")
                .put("zones", new JsonArray().add(left).add(corner)).put("lines", new JsonArray().add(middle)));
        return json;
    }

    // ---- what the page shows ------------------------------------------------------------------------------------

    private static void zoneAndLineAreDrawnOverTheLiveView(Browser browser) throws Exception {
        String points = browser.waitFor("""
                (() => { const p = document.querySelector('%s svg .zone[data-zone="left"] polygon');
                  return p ? p.getAttribute('points') : ''; })()""".formatted(TILE), 120, "zone drawn over the tile");
        assertEquals("0,0 %d,0 %d,%d 0,%d".formatted(W / 2, W / 2, H, H), points, "the zone in source pixels");
        assertEquals("%1$d,%2$d %3$d,%2$d %3$d,%4$d %1$d,%4$d".formatted(W * 3 / 4, H / 2, W, H),
                eval(browser, "document.querySelector('%s svg .zone[data-zone=\"corner\"] polygon').getAttribute('points')".formatted(TILE)),
                "the normalized zone in source pixels");

        // scaled like the picture: the left half of the frame as displayed, whatever its size on screen
        JsonObject shown = new JsonObject(eval(browser, """
                (() => { const f = document.querySelector('%1$s .frame').getBoundingClientRect();
                  const z = document.querySelector('%1$s .zone[data-zone="left"] polygon').getBoundingClientRect();
                  return JSON.stringify({frameWidth: f.width, frameHeight: f.height, width: z.width, height: z.height,
                    left: z.left - f.left, top: z.top - f.top}); })()""".formatted(TILE)));
        double frameWidth = shown.getDouble("frameWidth");
        assertTrue(Math.abs(shown.getDouble("width") - frameWidth / 2) < 2, "zone over the left half of the picture: " + shown);
        assertTrue(Math.abs(shown.getDouble("height") - shown.getDouble("frameHeight")) < 2, shown.encode());
        assertTrue(Math.abs(shown.getDouble("left")) < 2 && Math.abs(shown.getDouble("top")) < 2, shown.encode());
        String zoneLabel = eval(browser, "document.querySelector('%s .zone[data-zone=\"left\"] text').textContent".formatted(TILE));
        assertTrue(zoneLabel.matches("left · \\d+"), "zone labelled with its id and count: " + zoneLabel);

        JsonObject line = new JsonObject(eval(browser, """
                (() => { const g = document.querySelector('%s .line[data-line="middle"]');
                  const l = g.querySelector('line.rule'), arrow = g.querySelector('path.arrow').getBBox();
                  return JSON.stringify({x1: +l.getAttribute('x1'), y1: +l.getAttribute('y1'), x2: +l.getAttribute('x2'),
                    y2: +l.getAttribute('y2'), arrowTop: arrow.y, arrowBottom: arrow.y + arrow.height,
                    label: g.querySelector('text').textContent}); })()""".formatted(TILE)));
        assertEquals(new JsonObject().put("x1", 0).put("y1", H / 2).put("x2", W).put("y2", H / 2).encode(),
                new JsonObject().put("x1", line.getInteger("x1")).put("y1", line.getInteger("y1"))
                        .put("x2", line.getInteger("x2")).put("y2", line.getInteger("y2")).encode(), "the line's ends");
        // a line drawn left to right counts objects walking down the picture as "in": its arrow points down
        assertTrue(line.getDouble("arrowTop") >= H / 2.0 - 1 && line.getDouble("arrowBottom") > H / 2.0 + 10,
                "the arrow on the line's in side (below it): " + line);
        assertTrue(line.getString("label").matches("middle in \\d+ · out \\d+"), line.getString("label"));
    }

    private static void boxesShowTrackIdsAndTrailsEndAtTheirAnchors(Browser browser) throws Exception {
        String label = browser.waitFor("""
                (() => [...document.querySelectorAll('%s svg rect.box[data-track]')]
                  .map(r => r.nextElementSibling.textContent + '|' + r.dataset.track)
                  .find(l => /^\\S+ #\\d+ \\d\\.\\d\\d\\|/.test(l)) || '')()""".formatted(TILE), 60, "box labelled with a track id");
        String[] parts = label.split("\\|");
        assertTrue(parts[0].contains(" #" + parts[1] + " "), "the label names the box's track: " + label);

        // a trail of several positions ends where its box's anchor (bottom centre, the default) is in the picture shown
        String trail = browser.waitFor("""
                (() => { const boxes = new Map([...document.querySelectorAll('%1$s svg rect.box[data-track]')]
                    .map(r => [r.dataset.track, {x: +r.getAttribute('x') + +r.getAttribute('width') / 2,
                                                 y: +r.getAttribute('y') + +r.getAttribute('height')}]));
                  for (const p of document.querySelectorAll('%1$s svg polyline.trail')) {
                    const n = p.points.numberOfItems, last = n && p.points.getItem(n - 1), box = boxes.get(p.dataset.track);
                    if (n >= 3 && box && Math.hypot(last.x - box.x, last.y - box.y) < 1) return p.dataset.track + ': ' + n + ' points';
                  }
                  return ''; })()""".formatted(TILE), 60, "trail ending at its box's anchor");
        System.out.println("trail of track " + trail);
    }

    private static void eventsListFillsNewestFirstWithSnapshots(Browser browser, RunningApp app) throws Exception {
        String object = browser.waitFor("""
                (() => { const r = document.querySelector('#event-list tbody tr[data-camera="cam"]');
                  return r ? r.querySelector('.object').textContent : ''; })()""", 60, "event in the events list");
        assertTrue(object.matches("#\\d+ \\S+ \\d\\.\\d\\d"), "the object: track id, class, confidence: " + object);
        String snapshot = browser.waitFor("""
                (() => { const i = [...document.querySelectorAll('#event-list img.snapshot')]
                    .find(i => !i.hidden && i.complete && i.naturalWidth > 0);
                  return i ? i.closest('tr').dataset.event : ''; })()""", 60, "event with its best snapshot shown");
        JsonArray listed = assertNewestFirst(browser);
        // the page's rows are the server's events, the picture its best snapshot
        JsonArray known = app.get("/api/events?camera=cam&limit=1000").json().getJsonArray("events");
        assertTrue(known.stream().anyMatch(e -> ((JsonObject) e).getString("id").equals(snapshot)), snapshot + " in /api/events");
        assertEquals(200, app.get("/api/events/" + snapshot + "/snapshot.jpg").status());
        System.out.println(listed.size() + " events listed, " + snapshot + " with its snapshot");

        // live from /ws (the history is fetched once per connection): a new scene's objects come in, older ones end
        String newcomer = browser.waitFor("""
                (() => { const before = new Set(%s);
                  const r = [...document.querySelectorAll('#event-list tbody tr')].find(r => !before.has(r.dataset.event));
                  return r ? r.dataset.event : ''; })()""".formatted(listed.encode()), 30, "event arriving live");
        String ended = browser.waitFor("""
                (() => { const r = [...document.querySelectorAll('#event-list tbody tr.ended')][0];
                  return r ? r.querySelector('.state').textContent : ''; })()""", 30, "event ended live");
        assertTrue(ended.matches("ended after \\d+\\.\\d s"), ended);
        assertNewestFirst(browser);
        System.out.println("live: " + newcomer + " came, one " + ended);
    }

    private static void countersShowTheServersCounts(Browser browser, RunningApp app) throws Exception {
        String entered = browser.waitFor("""
                (() => { const n = document.querySelector('%s .counters li[data-zone="left"] .entered');
                  return n && +n.textContent > 0 ? n.textContent : ''; })()""".formatted(TILE), 90, "entries into the zone counted");
        long server = 0;
        for (Object o : app.get("/api/counts?camera=cam").json().getJsonArray("zones")) {
            JsonObject c = (JsonObject) o;
            if (c.getString("zone").equals("left")) server += c.getLong("entered");
        }
        assertTrue(Long.parseLong(entered) <= server && server > 0, "the page shows the server's total (which only grows): "
                + entered + " vs " + server);
        JsonObject shown = new JsonObject(eval(browser, """
                (() => { const q = (s) => document.querySelector('%s ' + s).textContent;
                  return JSON.stringify({inside: q('.counters li[data-zone="left"] .inside'), label: q('.zone[data-zone="left"] text'),
                    lineIn: q('.counters li[data-line="middle"] .in'), lineOut: q('.counters li[data-line="middle"] .out')}); })()"""
                .formatted(TILE)));
        assertEquals("left · " + shown.getString("inside"), shown.getString("label"), "the zone's label and counter agree");
        assertTrue(shown.getString("lineIn").matches("\\d+") && shown.getString("lineOut").matches("\\d+"), shown.encode());
        System.out.println("counters: zone left " + entered + " entered (server " + server + "), " + shown.encode());
    }

    /** The events listed, newest first by start; their ids. */
    private static JsonArray assertNewestFirst(Browser browser) throws InterruptedException {
        JsonObject listed = new JsonObject(eval(browser, """
                JSON.stringify({ids: [...document.querySelectorAll('#event-list tbody tr')].map(r => r.dataset.event),
                  starts: [...document.querySelectorAll('#event-list tbody tr')].map(r => +r.dataset.start)})"""));
        List<Double> starts = new ArrayList<>();
        for (Object s : listed.getJsonArray("starts")) starts.add(((Number) s).doubleValue());
        for (int i = 1; i < starts.size(); i++) assertTrue(starts.get(i - 1) >= starts.get(i), "newest first: " + starts);
        return listed.getJsonArray("ids");
    }

    // ---- the editor, by mouse ------------------------------------------------------------------------------------

    private static void zonesAndLinesEditedWithTheMouseAreSaved(Browser browser, PageInput input, RunningApp app) throws Exception {
        input.click(TILE + " .edit-rules");
        browser.waitFor("document.querySelector('%s').classList.contains('editing') ? 'open' : ''".formatted(TILE), 10, "editor open");

        // the zone's top right corner moves 32 px to the left (grabbed just inside the picture: the corner is on its edge)
        input.drag(below(framePoint(browser, W / 2, 0)), below(framePoint(browser, W / 2 - 32, 0)));

        input.click(TILE + " .add-zone");
        input.typeInto(TILE + " .shape-id", "door");
        int[][] door = {{240, 40}, {360, 40}, {360, 140}, {240, 140}};
        for (int[] p : door) input.click(framePoint(browser, p[0], p[1]));
        input.click(TILE + " .finish");

        input.click(TILE + " .add-line");
        input.typeInto(TILE + " .shape-id", "exit");
        input.click(framePoint(browser, 200, 300));
        input.click(framePoint(browser, 370, 300));     // a line's second end finishes it

        input.click(TILE + " .save");
        String saved = browser.waitFor("""
                (() => { const m = document.querySelector('%s .editor-message');
                  return m.classList.contains('ok') || m.classList.contains('error') ? m.textContent : ''; })()"""
                .formatted(TILE), 20, "answer to the save");
        assertTrue(saved.startsWith("Saved at"), saved);

        JsonArray zones = app.get("/api/cameras/cam/zones").array();
        assertEquals(List.of("left", "corner", "door"), ids(zones));
        JsonArray leftCorners = zones.getJsonObject(0).getJsonArray("polygon");
        assertNear(W / 2 - 32, 0, leftCorners.getJsonArray(1), 3, "the dragged corner");
        assertNear(0, 0, leftCorners.getJsonArray(0), 0, "the other corners stay");
        assertNear(W / 2, H, leftCorners.getJsonArray(2), 0, "the other corners stay");
        JsonArray doorCorners = zones.getJsonObject(2).getJsonArray("polygon");
        assertEquals(door.length, doorCorners.size(), doorCorners.encode());
        for (int i = 0; i < door.length; i++) assertNear(door[i][0], door[i][1], doorCorners.getJsonArray(i), 2, "door corner " + i);

        JsonArray lines = app.get("/api/cameras/cam/lines").array();
        assertEquals(List.of("middle", "exit"), ids(lines));
        assertNear(200, 300, lines.getJsonObject(1).getJsonArray("from"), 2, "the new line's first end");
        assertNear(370, 300, lines.getJsonObject(1).getJsonArray("to"), 2, "the new line's second end");

        // the page shows what the server kept, counters included
        browser.waitFor("document.querySelector('%1$s .zone[data-zone=\"door\"] polygon') && document.querySelector('%1$s .counters li[data-line=\"exit\"]') ? 'yes' : ''"
                .formatted(TILE), 10, "the saved zone and line drawn and counted");
    }

    private static void aZoneTheServerRefusesShowsItsReason(Browser browser, PageInput input, RunningApp app) throws Exception {
        input.click(TILE + " .add-zone");
        input.typeInto(TILE + " .shape-id", "bad");
        input.click(framePoint(browser, 60, 300));
        input.click(framePoint(browser, 120, 340));
        input.click(TILE + " .finish");
        input.click(TILE + " .save");
        String shown = browser.waitFor("""
                (() => { const m = document.querySelector('%s .editor-message');
                  return m.classList.contains('error') ? m.textContent : ''; })()""".formatted(TILE), 20, "the refusal");

        // the server's words for the same mistake: the last zone of the list has two corners
        JsonArray same = app.get("/api/cameras/cam/zones").array().copy()
                .add(new JsonObject().put("id", "bad").put("polygon", points(60, 300, 120, 340)));
        RunningApp.Response refused = app.call(HttpMethod.PUT, "/api/cameras/cam/zones", same.encode());
        assertEquals(400, refused.status(), refused.body());
        assertEquals("Not saved (zones): " + refused.json().getString("error"), shown);
        assertTrue(shown.contains("expected at least 3 points, found 2"), shown);
        assertEquals(List.of("left", "corner", "door"), ids(app.get("/api/cameras/cam/zones").array()), "nothing saved");

        // the user deletes the refused zone and the line added before, and saves again
        input.click(TILE + " .shapes button[title=\"delete zone bad\"]");
        input.click(TILE + " .shapes button[title=\"delete line exit\"]");
        input.click(TILE + " .save");
        String saved = browser.waitFor("""
                (() => { const m = document.querySelector('%s .editor-message');
                  return m.classList.contains('ok') ? m.textContent : ''; })()""".formatted(TILE), 20, "the second save");
        assertTrue(saved.startsWith("Saved at"), saved);
        assertEquals(List.of("left", "corner", "door"), ids(app.get("/api/cameras/cam/zones").array()));
        assertEquals(List.of("middle"), ids(app.get("/api/cameras/cam/lines").array()), "the line deleted");

        input.click(TILE + " .discard");
        browser.waitFor("""
                (() => { const t = document.querySelector('%s');
                  return !t.classList.contains('editing') && !t.querySelector('.zone[data-zone="bad"]')
                    && t.querySelector('.zone[data-zone="door"]') ? 'closed' : ''; })()""".formatted(TILE), 10,
                "the editor closed, the refused zone dropped");
        assertFalse(eval(browser, "document.getElementById('access').hidden ? '' : 'refused'").equals("refused"),
                "the token cookie carried every request");
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    /**
     * Where the source pixel (x, y) of the camera's frame is on screen, after scrolling it to the middle of the view
     * (the tile of a lone camera is taller than the window).
     */
    private static PageInput.Point framePoint(Browser browser, int x, int y) throws Exception {
        JsonObject p = new JsonObject(eval(browser, """
                (() => { const svg = document.querySelector('%s .frame svg');
                  const before = svg.getBoundingClientRect();
                  window.scrollBy(0, before.top + %d / %d * before.height - innerHeight / 2);
                  const r = svg.getBoundingClientRect();
                  return JSON.stringify({x: r.left + %d / %d * r.width, y: r.top + %d / %d * r.height}); })()"""
                .formatted(TILE, y, H, x, W, y, H)));
        return new PageInput.Point(p.getDouble("x"), p.getDouble("y"));
    }

    /** Two CSS pixels lower: inside the picture when p is on its top edge. */
    private static PageInput.Point below(PageInput.Point p) {
        return new PageInput.Point(p.x(), p.y() + 2);
    }

    private static String eval(Browser browser, String expression) throws InterruptedException {
        return browser.cdp.eval(expression).getString("value");
    }

    private static List<String> ids(JsonArray rules) {
        List<String> ids = new ArrayList<>();
        for (Object o : rules) ids.add(((JsonObject) o).getString("id"));
        return ids;
    }

    private static void assertNear(double x, double y, JsonArray point, double tolerance, String what) {
        assertTrue(Math.abs(point.getDouble(0) - x) <= tolerance && Math.abs(point.getDouble(1) - y) <= tolerance,
                what + ": expected about [" + x + ", " + y + "], found " + point.encode());
    }

    private static JsonArray point(int x, int y) { return new JsonArray().add(x).add(y); }

    private static JsonArray points(int... xy) {
        JsonArray a = new JsonArray();
        for (int i = 0; i < xy.length; i += 2) a.add(point(xy[i], xy[i + 1]));
        return a;
    }

    private static void lap(String what, long start) {
        System.out.printf("%s after %.1f s%n", what, (System.nanoTime() - start) / 1e9);
    }
}
