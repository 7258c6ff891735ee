package io.argus.pipeline.events;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One camera's counts, kept from its events' changes: per zone and class the objects inside now and the entries so
 * far; per line and class the crossings in and out so far. The totals are what a failover must not lose: the node
 * that takes a camera over starts from the totals the cluster kept ({@link #restore}); the objects inside start from
 * zero there, since the new owner's tracks start afresh and enter again.
 *
 * <p>A count message: {@code {"type": "count", "cameraId", "zone", "className", "count": inside, "entered": total}} or
 * {@code {"type": "count", "cameraId", "line", "className", "in", "out"}}. Not thread-safe: the events verticle owns it.
 */
final class CountBook {
    private final String camera;
    /** "zone\0class" -> {inside, entered}; "line\0class" -> {in, out}. Sorted so listings are stable. */
    private final Map<String, long[]> zones = new TreeMap<>();
    private final Map<String, long[]> lines = new TreeMap<>();

    CountBook(String camera) { this.camera = camera; }

    /**
     * Applies one event's changes; returns the count messages that changed (one per zone or line and class touched).
     */
    List<JsonObject> apply(JsonObject event) {
        List<JsonObject> changed = new ArrayList<>();
        JsonArray changes = event.getJsonArray("change");
        if (changes == null) return changed;
        String cls = event.getString("className", "?");
        for (Object o : changes) {
            if (!(o instanceof JsonObject c)) continue;
            String type = c.getString("type", "");
            switch (type) {
                case "entered" -> {
                    long[] z = zones.computeIfAbsent(key(c.getString("zone"), cls), k -> new long[2]);
                    z[0]++;
                    z[1]++;
                    changed.add(zoneMessage(c.getString("zone"), cls, z));
                }
                case "left" -> {
                    long[] z = zones.computeIfAbsent(key(c.getString("zone"), cls), k -> new long[2]);
                    z[0] = Math.max(0, z[0] - 1);
                    changed.add(zoneMessage(c.getString("zone"), cls, z));
                }
                case "crossed" -> {
                    long[] l = lines.computeIfAbsent(key(c.getString("line"), cls), k -> new long[2]);
                    if ("out".equals(c.getString("direction"))) l[1]++;
                    else l[0]++;
                    changed.add(lineMessage(c.getString("line"), cls, l));
                }
                default -> { }
            }
        }
        return changed;
    }

    /** Takes over the totals kept in the cluster ({@link #toJson}'s form); objects inside start at zero. */
    void restore(JsonObject kept) {
        if (kept == null) return;
        for (Object o : kept.getJsonArray("zones", new JsonArray())) {
            if (o instanceof JsonObject z) zones.put(key(z.getString("zone"), z.getString("className")), new long[]{0, z.getLong("entered", 0L)});
        }
        for (Object o : kept.getJsonArray("lines", new JsonArray())) {
            if (o instanceof JsonObject l) lines.put(key(l.getString("line"), l.getString("className")), new long[]{l.getLong("in", 0L), l.getLong("out", 0L)});
        }
    }

    /** Every count of the camera: {"cameraId", "zones": [zone messages], "lines": [line messages]}. */
    JsonObject toJson() {
        JsonArray z = new JsonArray();
        zones.forEach((k, v) -> z.add(zoneMessage(part(k, 0), part(k, 1), v)));
        JsonArray l = new JsonArray();
        lines.forEach((k, v) -> l.add(lineMessage(part(k, 0), part(k, 1), v)));
        return new JsonObject().put("cameraId", camera).put("zones", z).put("lines", l);
    }

    /** A zone left the rules: its objects are no longer inside (the totals stay). Returns the changed messages. */
    List<JsonObject> emptyZonesExcept(java.util.Set<String> keptZones) {
        List<JsonObject> changed = new ArrayList<>();
        zones.forEach((k, v) -> {
            if (!keptZones.contains(part(k, 0)) && v[0] != 0) {
                v[0] = 0;
                changed.add(zoneMessage(part(k, 0), part(k, 1), v));
            }
        });
        return changed;
    }

    private JsonObject zoneMessage(String zone, String cls, long[] v) {
        return new JsonObject().put("type", "count").put("cameraId", camera).put("zone", zone).put("className", cls)
                .put("count", v[0]).put("entered", v[1]);
    }

    private JsonObject lineMessage(String line, String cls, long[] v) {
        return new JsonObject().put("type", "count").put("cameraId", camera).put("line", line).put("className", cls)
                .put("in", v[0]).put("out", v[1]);
    }

    private static String key(String a, String b) { return a + "\u0000" + b; }

    private static String part(String key, int i) { return key.split("\u0000", -1)[i]; }
}
