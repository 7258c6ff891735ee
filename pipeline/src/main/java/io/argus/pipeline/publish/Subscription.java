package io.argus.pipeline.publish;

import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What a WebSocket client wants: cameras (empty: all), classes (empty: all), a minimum confidence, whether to also
 * get snapshot notices, whether to get messages whose detections are all filtered away, whether to get detection
 * messages at all (default true) and tracked-object events (default false; docs/tracking.md), and for events the
 * zones (empty: all; an event passes when its object is or was in one of them).
 *
 * <p>Sent as {@code {"type": "subscribe", "cameras": ["cam1"], "classes": ["person"], "minConfidence": 0.5,
 * "snapshots": false, "includeEmpty": false, "detections": true, "events": true, "zones": ["porch"]}} or as the same
 * keys in the /ws query string (lists comma separated).
 */
public record Subscription(Set<String> cameras, Set<String> classes, double minConfidence, boolean snapshots,
                           boolean includeEmpty, boolean detections, boolean events, Set<String> zones) {
    private static final Set<String> KEYS = Set.of("type", "cameras", "classes", "minConfidence", "snapshots",
            "includeEmpty", "detections", "events", "zones");

    /** Parses a subscribe message; IllegalArgumentException names the bad field. */
    public static Subscription fromJson(JsonObject j) {
        for (String k : j.fieldNames()) {
            if (!KEYS.contains(k)) throw new IllegalArgumentException("unknown field \"" + k + "\" (expected " + String.join(", ", KEYS) + ")");
        }
        return new Subscription(strings(j.getValue("cameras"), "cameras"), strings(j.getValue("classes"), "classes"),
                confidence(j.getValue("minConfidence")), bool(j.getValue("snapshots"), "snapshots", false),
                bool(j.getValue("includeEmpty"), "includeEmpty", false), bool(j.getValue("detections"), "detections", true),
                bool(j.getValue("events"), "events", false), strings(j.getValue("zones"), "zones"));
    }

    /** From query parameters; null when none of the keys is present. */
    public static Subscription fromQuery(MultiMap q) {
        boolean any = false;
        for (String k : KEYS) any |= q.contains(k);
        if (!any) return null;
        JsonObject j = new JsonObject();
        for (String k : new String[]{"cameras", "classes", "zones"}) {
            if (q.contains(k)) {
                JsonArray a = new JsonArray();
                for (String s : q.get(k).split(",")) if (!s.isBlank()) a.add(s.strip());
                j.put(k, a);
            }
        }
        if (q.contains("minConfidence")) j.put("minConfidence", q.get("minConfidence"));
        if (q.contains("snapshots")) j.put("snapshots", q.get("snapshots"));
        for (String k : new String[]{"includeEmpty", "detections", "events"}) if (q.contains(k)) j.put(k, q.get(k));
        return fromJson(j);
    }

    public boolean wantsCamera(String id) { return cameras.isEmpty() || cameras.contains(id); }

    /** True when every detection passes (no class or confidence filter): the message can be sent as is. */
    public boolean passesAll() { return classes.isEmpty() && minConfidence <= 0; }

    /**
     * An event or count message: its class and zones pass (cameras are checked apart, as for every message); a line's
     * count never passes a zone filter: with zones set, only those zones' counts come.
     */
    public boolean acceptsEvent(JsonObject event) {
        if (!events) return false;
        if (!classes.isEmpty() && !classes.contains(event.getString("className"))) return false;
        if (zones.isEmpty()) return true;
        if ("count".equals(event.getString("type"))) return zones.contains(event.getString("zone"));
        for (String key : new String[]{"zones", "enteredZones"}) {
            JsonArray a = event.getJsonArray(key);
            if (a != null) for (Object z : a) if (zones.contains(z)) return true;
        }
        return false;
    }

    public boolean accepts(JsonObject detection) {
        if (!classes.isEmpty() && !classes.contains(detection.getString("className"))) return false;
        return detection.getDouble("confidence", 0.0) >= minConfidence;
    }

    public JsonObject toJson() {
        return new JsonObject().put("cameras", new JsonArray(cameras.stream().toList()))
                .put("classes", new JsonArray(classes.stream().toList())).put("minConfidence", minConfidence)
                .put("snapshots", snapshots).put("includeEmpty", includeEmpty).put("detections", detections)
                .put("events", events).put("zones", new JsonArray(zones.stream().toList()));
    }

    private static Set<String> strings(Object v, String field) {
        Set<String> out = new LinkedHashSet<>();
        if (v == null) return out;
        if (!(v instanceof JsonArray a)) throw new IllegalArgumentException(field + ": expected a list of strings, found " + v);
        for (Object o : a) {
            if (!(o instanceof String s) || s.isBlank()) throw new IllegalArgumentException(field + ": expected a list of strings, found " + a.encode());
            out.add(s);
        }
        return out;
    }

    private static double confidence(Object v) {
        if (v == null) return 0;
        double d;
        if (v instanceof Number n) {
            d = n.doubleValue();
        } else {
            try {
                d = Double.parseDouble(v.toString());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("minConfidence: expected a number in 0..1, found \"" + v + "\"");
            }
        }
        if (!(d >= 0 && d <= 1)) throw new IllegalArgumentException("minConfidence: expected a number in 0..1, found " + v);
        return d;
    }

    private static boolean bool(Object v, String field, boolean dflt) {
        if (v == null) return dflt;
        if (v instanceof Boolean b) return b;
        if ("true".equals(v.toString())) return true;
        if ("false".equals(v.toString())) return false;
        throw new IllegalArgumentException(field + ": expected true or false, found " + v);
    }
}
