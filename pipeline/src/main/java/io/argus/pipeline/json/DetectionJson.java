package io.argus.pipeline.json;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The JSON form of a detection, shared by {@code argus detect} and the pipeline's detection messages:
 * {@code {"classId": i, "className": s, "confidence": c, "box": {"x": left, "y": top, "w": width, "h": height}}},
 * box in source pixels.
 */
public final class DetectionJson {
    private DetectionJson() {}

    public static JsonObject of(Detection d) {
        Box b = d.box();
        return new JsonObject()
                .put("classId", d.classId())
                .put("className", d.className())
                .put("confidence", round(d.confidence(), 5))
                .put("box", new JsonObject().put("x", round(b.x(), 2)).put("y", round(b.y(), 2))
                        .put("w", round(b.w(), 2)).put("h", round(b.h(), 2)));
    }

    public static JsonArray of(List<Detection> ds) {
        JsonArray a = new JsonArray();
        for (Detection d : ds) a.add(of(d));
        return a;
    }

    static double round(float v, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }
}
