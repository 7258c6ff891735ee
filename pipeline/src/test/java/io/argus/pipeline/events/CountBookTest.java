package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A camera's counts from its events' changes, and the totals a new owner takes over after a failover. */
@Budget(seconds = 5)
class CountBookTest {
    static JsonObject event(String cls, JsonObject... changes) {
        return new JsonObject().put("className", cls).put("change", new JsonArray(List.of((Object[]) changes)));
    }

    static JsonObject change(String type, String key, String id) {
        return new JsonObject().put("type", type).put(key, id);
    }

    @Test
    void zonesCountInsideAndEntriesLinesCountEachWay() {
        CountBook b = new CountBook("cam");
        b.apply(event("circle", change("entered", "zone", "porch")));
        b.apply(event("circle", change("entered", "zone", "porch")));
        List<JsonObject> left = b.apply(event("circle", change("left", "zone", "porch")));
        assertEquals(1, left.size());
        assertEquals(1L, left.get(0).getLong("count"));
        assertEquals(2L, left.get(0).getLong("entered"));
        b.apply(event("square", change("crossed", "line", "gate").put("direction", "in")));
        List<JsonObject> out = b.apply(event("square", change("crossed", "line", "gate").put("direction", "out")));
        assertEquals(new JsonObject().put("type", "count").put("cameraId", "cam").put("line", "gate").put("className", "square")
                .put("in", 1L).put("out", 1L), out.get(0));
        assertEquals(0, b.apply(event("square", change("loitering", "zone", "porch"))).size(), "loitering changes no count");
    }

    @Test
    void aNewOwnerGoesOnFromTheKeptTotalsWithNobodyInside() {
        CountBook first = new CountBook("cam");
        first.apply(event("circle", change("entered", "zone", "porch")));
        first.apply(event("circle", change("crossed", "line", "gate").put("direction", "in")));
        CountBook next = new CountBook("cam");
        next.restore(first.toJson());
        List<JsonObject> z = next.apply(event("circle", change("entered", "zone", "porch")));
        assertEquals(1L, z.get(0).getLong("count"), "inside starts from zero on the new owner");
        assertEquals(2L, z.get(0).getLong("entered"), "entries go on from the kept total");
        List<JsonObject> l = next.apply(event("circle", change("crossed", "line", "gate").put("direction", "in")));
        assertEquals(2L, l.get(0).getLong("in"));
    }

    @Test
    void aZoneThatLeavesTheRulesIsEmptied() {
        CountBook b = new CountBook("cam");
        b.apply(event("circle", change("entered", "zone", "porch")));
        b.apply(event("circle", change("entered", "zone", "drive")));
        List<JsonObject> changed = b.emptyZonesExcept(java.util.Set.of("drive"));
        assertEquals(1, changed.size());
        assertEquals("porch", changed.get(0).getString("zone"));
        assertEquals(0L, changed.get(0).getLong("count"));
    }
}
