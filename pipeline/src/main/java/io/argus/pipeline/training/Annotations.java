package io.argus.pipeline.training;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The labels a user posts for a frame ({@code PUT /api/training/frames/:id/labels}): {@code {"labels": [{"className":
 * "star", "box": {"x": 10, "y": 20, "w": 30, "h": 30}}, ...]}} with boxes in the frame's pixels, the class by name or
 * {@code classId}. An empty list says "nothing to detect here". Errors name the entry and the field.
 *
 * <p>A label may carry the {@code confidence} of the proposal it came from (0..1; 1 for a box drawn by hand).
 * Duplicates ({@link DuplicateBoxes}: same class, overlap above {@link DuplicateBoxes#IOU}) are not saved: the
 * higher-scored box of such a pair stays. {@code "keepDuplicates": true} saves every box as posted (two objects that
 * do overlap that much).
 */
public final class Annotations {
    /** Boxes may stick out of the frame by this many pixels (a drag past the edge); they are clipped. */
    static final double EDGE_SLACK = 2;

    private Annotations() {}

    public static List<Detection> parse(JsonObject body, List<String> names, int width, int height) {
        Object raw = body.getValue("labels");
        if (!(raw instanceof JsonArray list)) {
            throw new IllegalArgumentException("labels: expected a list of {\"className\", \"box\": {\"x\", \"y\", \"w\", \"h\"}}, found "
                    + (raw == null ? "nothing" : raw));
        }
        Object keep = body.getValue("keepDuplicates", false);
        if (!(keep instanceof Boolean keepDuplicates)) {
            throw new IllegalArgumentException("keepDuplicates: expected true or false, found " + keep);
        }
        List<Detection> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String at = "labels[" + i + "]";
            if (!(list.getValue(i) instanceof JsonObject o)) throw new IllegalArgumentException(at + ": expected an object, found " + list.getValue(i));
            int cls = classOf(o, names, at);
            if (!(o.getValue("box") instanceof JsonObject b)) throw new IllegalArgumentException(at + ".box: expected {\"x\", \"y\", \"w\", \"h\"} in pixels");
            double x = number(b, "x", at), y = number(b, "y", at), w = number(b, "w", at), h = number(b, "h", at);
            if (w < 1 || h < 1) throw new IllegalArgumentException(at + ".box: expected w and h of at least 1 pixel, found " + w + "x" + h);
            if (x < -EDGE_SLACK || y < -EDGE_SLACK || x + w > width + EDGE_SLACK || y + h > height + EDGE_SLACK) {
                throw new IllegalArgumentException(at + ".box: (" + x + ", " + y + ", " + w + ", " + h + ") lies outside the "
                        + width + "x" + height + " frame");
            }
            double x0 = Math.max(0, x), y0 = Math.max(0, y), x1 = Math.min(width, x + w), y1 = Math.min(height, y + h);
            out.add(new Detection(cls, names.get(cls), confidence(o, at),
                    new Box((float) x0, (float) y0, (float) (x1 - x0), (float) (y1 - y0))));
        }
        List<Detection> saved = keepDuplicates ? out : DuplicateBoxes.without(out);
        // a label is a person's word: stored with confidence 1, whatever the proposal's score was
        return saved.stream().map(d -> new Detection(d.classId(), d.className(), 1f, d.box())).toList();
    }

    private static int classOf(JsonObject o, List<String> names, String at) {
        Object name = o.getValue("className");
        Object id = o.getValue("classId");
        if (name instanceof String s) {
            int c = names.indexOf(s);
            if (c < 0) throw new IllegalArgumentException(at + ".className: unknown class \"" + s + "\" (classes: " + String.join(", ", names) + ")");
            if (id != null && !(id instanceof Number n && n.intValue() == c)) {
                throw new IllegalArgumentException(at + ": classId " + id + " is not \"" + s + "\" (" + c + ")");
            }
            return c;
        }
        if (id instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            int c = n.intValue();
            if (c < 0 || c >= names.size()) throw new IllegalArgumentException(at + ".classId: expected 0.." + (names.size() - 1) + ", found " + c);
            return c;
        }
        throw new IllegalArgumentException(at + ": expected \"className\" (one of " + String.join(", ", names) + ") or \"classId\"");
    }

    private static float confidence(JsonObject o, String at) {
        Object c = o.getValue("confidence");
        if (c == null) return 1f;
        if (!(c instanceof Number n) || !(n.doubleValue() >= 0 && n.doubleValue() <= 1)) {
            throw new IllegalArgumentException(at + ".confidence: expected a number in 0..1, found " + c);
        }
        return n.floatValue();
    }

    private static double number(JsonObject b, String key, String at) {
        if (!(b.getValue(key) instanceof Number n) || !Double.isFinite(n.doubleValue())) {
            throw new IllegalArgumentException(at + ".box." + key + ": expected a number of pixels, found " + b.getValue(key));
        }
        return n.doubleValue();
    }
}
