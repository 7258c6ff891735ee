package io.argus.pipeline.events;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recent events of every camera, as {@code /api/events} pages them: one entry per event id holding its latest
 * state ({@code new}, then each {@code update}, then {@code end}), newest first, at most {@code capacity} events (the
 * oldest forgotten first). Every node keeps its own, fed by the cluster-wide event address, so any node answers for
 * every camera. Not thread-safe: one verticle's context owns it.
 */
public final class EventHistory {
    /** What a page asks for; null fields do not filter. Times are epoch ms (an event overlapping the range counts). */
    public record Query(String camera, String zone, String line, String className, Double after, Double before,
                        int offset, int limit) {
        public static final int MAX_LIMIT = 1000;

        /**
         * From query parameters; IllegalArgumentException names the bad one. {@code param} gives a parameter's value
         * or null.
         */
        public static Query parse(java.util.function.Function<String, String> param) {
            return new Query(param.apply("camera"), param.apply("zone"), param.apply("line"), param.apply("class"),
                    time(param, "after"), time(param, "before"), count(param, "offset", 0, 0, Integer.MAX_VALUE),
                    count(param, "limit", 100, 1, MAX_LIMIT));
        }

        private static Double time(java.util.function.Function<String, String> param, String name) {
            String v = param.apply(name);
            if (v == null || v.isBlank()) return null;
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + ": expected epoch milliseconds, found \"" + v + "\"");
            }
        }

        private static int count(java.util.function.Function<String, String> param, String name, int dflt, int min, int max) {
            String v = param.apply(name);
            if (v == null || v.isBlank()) return dflt;
            try {
                int n = Integer.parseInt(v);
                if (n < min || n > max) throw new NumberFormatException();
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + ": expected an integer in " + min + ".." + max + ", found \"" + v + "\"");
            }
        }
    }

    private final int capacity;
    /** Insertion order = order of the events' first message, so iterating backwards is newest first. */
    private final LinkedHashMap<String, JsonObject> events = new LinkedHashMap<>();
    private long forgotten;

    public EventHistory(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be >= 1, found " + capacity);
        this.capacity = capacity;
    }

    /** Records an event message (any kind); a later message of the same id replaces its state in place. */
    public void record(JsonObject event) {
        String id = event.getString("id");
        if (id == null) return;
        JsonObject before = events.get(id);
        if (before != null && before.getString("kind", "").equals("end") && !"end".equals(event.getString("kind"))) {
            return; // a late update after the end (messages from two nodes around a failover): the end stands
        }
        events.put(id, event);
        while (events.size() > capacity) {
            Iterator<String> oldest = events.keySet().iterator();
            oldest.next();
            oldest.remove();
            forgotten++;
        }
    }

    public JsonObject get(String id) { return events.get(id); }

    /** A page, newest first: {"events": [...], "total": matching, "offset", "limit", "forgotten": dropped by the bound}. */
    public JsonObject page(Query q) {
        List<JsonObject> all = new ArrayList<>(events.values());
        JsonArray page = new JsonArray();
        int matching = 0;
        for (int i = all.size() - 1; i >= 0; i--) {
            JsonObject e = all.get(i);
            if (!matches(e, q)) continue;
            if (matching >= q.offset() && page.size() < q.limit()) page.add(e);
            matching++;
        }
        return new JsonObject().put("events", page).put("total", matching).put("offset", q.offset())
                .put("limit", q.limit()).put("forgotten", forgotten);
    }

    static boolean matches(JsonObject e, Query q) {
        if (q.camera() != null && !q.camera().equals(e.getString("cameraId"))) return false;
        if (q.className() != null && !q.className().equals(e.getString("className"))) return false;
        if (q.zone() != null && !contains(e.getJsonArray("enteredZones"), q.zone())) return false;
        if (q.line() != null && !crossed(e, q.line())) return false;
        double start = e.getDouble("start", 0.0);
        Double endValue = e.getDouble("end");
        double end = endValue != null ? endValue : Double.MAX_VALUE;
        if (q.after() != null && end < q.after()) return false;
        return q.before() == null || start <= q.before();
    }

    private static boolean contains(JsonArray a, String v) {
        return a != null && a.contains(v);
    }

    private static boolean crossed(JsonObject e, String line) {
        JsonArray lines = e.getJsonArray("crossedLines");
        return lines != null && lines.contains(line);
    }

    public int size() { return events.size(); }

    /** Events forgotten because of the bound. */
    public long forgotten() { return forgotten; }

    /** For tests: the ids, oldest first. */
    Map<String, JsonObject> view() { return java.util.Collections.unmodifiableMap(events); }
}
