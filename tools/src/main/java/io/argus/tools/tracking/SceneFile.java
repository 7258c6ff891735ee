package io.argus.tools.tracking;

import io.argus.tracking.Line;
import io.argus.tracking.Point;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code argus eval track} reads from the scene.json beside a tracking video ({@link TrackingVideo}): the class
 * names, each counting line with its true counts per class name, in and out, and the video's size (0 if absent).
 */
public record SceneFile(List<String> classes, List<LineTruth> lines, int width, int height) {
    /** A counting line and how many objects of each class truly crossed it. */
    public record LineTruth(Line line, Map<String, Integer> in, Map<String, Integer> out) {}

    public static SceneFile read(Path file) {
        JsonObject json;
        try {
            json = new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": cannot read: " + e.getMessage(), e));
        } catch (DecodeException e) {
            throw new IllegalArgumentException(file + ": not JSON: " + e.getMessage(), e);
        }
        try {
            List<String> classes = new ArrayList<>();
            for (Object c : array(json, "classes")) classes.add((String) c);
            List<LineTruth> lines = new ArrayList<>();
            JsonArray ls = array(json, "lines");
            for (int i = 0; i < ls.size(); i++) {
                JsonObject l = ls.getJsonObject(i);
                String where = "lines[" + i + "]";
                JsonArray from = array(l, "from", where), to = array(l, "to", where);
                if (from.size() != 2 || to.size() != 2) {
                    throw new IllegalArgumentException(where + ": from and to are [x, y]");
                }
                lines.add(new LineTruth(new Line(l.getString("id", "line" + i), new Point(from.getDouble(0),
                        from.getDouble(1)), new Point(to.getDouble(0), to.getDouble(1)), false, List.of()),
                        counts(l, "in", where), counts(l, "out", where)));
            }
            int width = json.getInteger("width", 0), height = json.getInteger("height", 0);
            if (width < 0 || height < 0) throw new IllegalArgumentException("width, height: expected >= 0, found "
                    + width + "x" + height);
            return new SceneFile(List.copyOf(classes), List.copyOf(lines), width, height);
        } catch (ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException(file + ": unexpected content: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static JsonArray array(JsonObject o, String key) { return array(o, key, null); }

    private static JsonArray array(JsonObject o, String key, String where) {
        JsonArray a = o.getJsonArray(key);
        if (a == null) throw new IllegalArgumentException((where == null ? "" : where + ".") + key + ": missing");
        return a;
    }

    private static Map<String, Integer> counts(JsonObject line, String key, String where) {
        JsonObject o = line.getJsonObject(key);
        if (o == null) throw new IllegalArgumentException(where + "." + key + ": missing (true counts per class)");
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String k : o.fieldNames()) out.put(k, o.getInteger(k));
        return out;
    }
}
