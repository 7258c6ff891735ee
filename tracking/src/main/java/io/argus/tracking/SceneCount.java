package io.argus.pipeline.tracking;

import io.vertx.core.json.JsonObject;

/**
 * One counter of a camera, for one class: either the objects inside a zone now ({@code zone}, {@code inside}), or the
 * crossings of a line since the camera started ({@code line}, {@code in}, {@code out}). The other fields are null / 0.
 */
public record SceneCount(String zone, String line, String className, int inside, int in, int out) {

    public static SceneCount ofZone(String zone, String className, int inside) {
        return new SceneCount(zone, null, className, inside, 0, 0);
    }

    public static SceneCount ofLine(String line, String className, int in, int out) {
        return new SceneCount(null, line, className, 0, in, out);
    }

    public boolean isZone() { return zone != null; }

    /** The zone's or the line's id. */
    public String ruleId() { return isZone() ? zone : line; }

    /**
     * The count message of docs/tracking.md: {@code {"type": "count", "cameraId", "zone", "className", "count": 2}}
     * for a zone, {@code ..."line", "className", "count": {"in": 5, "out": 3}}} for a line.
     */
    public JsonObject toJson(String cameraId) {
        JsonObject j = new JsonObject().put("type", "count").put("cameraId", cameraId);
        if (isZone()) return j.put("zone", zone).put("className", className).put("count", inside);
        return j.put("line", line).put("className", className).put("count", new JsonObject().put("in", in).put("out", out));
    }
}
