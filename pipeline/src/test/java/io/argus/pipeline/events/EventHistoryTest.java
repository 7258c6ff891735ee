package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /api/events' store: newest first, one entry per event in its latest state, filters, paging, the bound. */
@Budget(seconds = 5)
class EventHistoryTest {
    static JsonObject event(String id, String camera, String kind, String cls, double start, Double end, String... zones) {
        JsonObject e = new JsonObject().put("type", "event").put("id", id).put("cameraId", camera).put("kind", kind)
                .put("className", cls).put("start", start).put("enteredZones", new JsonArray(java.util.List.of((Object[]) zones)))
                .put("crossedLines", new JsonArray());
        if (end == null) e.putNull("end");
        else e.put("end", end);
        return e;
    }

    static JsonObject page(EventHistory h, Map<String, String> params) {
        return h.page(EventHistory.Query.parse(params::get));
    }

    @Test
    void latestStateNewestFirstAndFilters() {
        EventHistory h = new EventHistory(100);
        h.record(event("a-1-0", "a", "new", "circle", 1000, null));
        h.record(event("b-1-0", "b", "new", "square", 2000, null, "porch"));
        h.record(event("a-1-0", "a", "end", "circle", 1000, 1500.0));
        JsonObject all = page(h, Map.of());
        assertEquals(2, all.getInteger("total"));
        assertEquals("b-1-0", all.getJsonArray("events").getJsonObject(0).getString("id"), "newest first");
        assertEquals("end", all.getJsonArray("events").getJsonObject(1).getString("kind"), "latest state of a-1-0");
        assertEquals(1, page(h, Map.of("camera", "a")).getInteger("total"));
        assertEquals(1, page(h, Map.of("zone", "porch")).getInteger("total"));
        assertEquals(1, page(h, Map.of("class", "square")).getInteger("total"));
        assertEquals(1, page(h, Map.of("after", "1600")).getInteger("total"), "a-1-0 ended at 1500");
        assertEquals(1, page(h, Map.of("before", "1500")).getInteger("total"), "b-1-0 started at 2000");
        JsonObject second = page(h, Map.of("offset", "1", "limit", "1"));
        assertEquals("a-1-0", second.getJsonArray("events").getJsonObject(0).getString("id"));
    }

    @Test
    void anUpdateAfterTheEndDoesNotReopenIt() {
        EventHistory h = new EventHistory(10);
        h.record(event("a-1-0", "a", "end", "circle", 1000, 1500.0));
        h.record(event("a-1-0", "a", "update", "circle", 1000, null));
        assertEquals("end", h.get("a-1-0").getString("kind"));
    }

    @Test
    void theOldestEventsAreForgottenAndCounted() {
        EventHistory h = new EventHistory(3);
        for (int i = 0; i < 5; i++) h.record(event("a-" + i + "-0", "a", "new", "circle", i, null));
        assertEquals(3, h.size());
        assertEquals(2, h.forgotten());
        assertEquals(null, h.get("a-0-0"));
        assertEquals(2L, page(h, Map.of()).getLong("forgotten"));
    }

    @Test
    void badParametersAreNamed() {
        EventHistory h = new EventHistory(3);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> page(h, Map.of("limit", "5000")));
        assertEquals("limit: expected an integer in 1..1000, found \"5000\"", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> page(h, Map.of("after", "yesterday")));
        assertEquals("after: expected epoch milliseconds, found \"yesterday\"", e.getMessage());
    }
}
