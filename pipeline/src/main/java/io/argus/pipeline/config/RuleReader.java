package io.argus.pipeline.config;

import io.argus.tracking.Point;
import io.argus.tracking.Zone;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads one zone or line from its JSON (a YAML file's or a REST body's) key by key, the way {@code ConfigNode} reads
 * the rest of the configuration: every error is a {@link ConfigException} naming the full key path, down to the point
 * ({@code cameras[0].zones[1].polygon[2]}), with what was expected and what was found. ConfigNode cannot read a list
 * of points, hence this reader.
 */
final class RuleReader {
    private final String path;
    private final JsonObject json;
    private final Set<String> readKeys = new LinkedHashSet<>();

    RuleReader(Object value, String path) {
        if (!(value instanceof JsonObject o)) throw new ConfigException(path, "expected a section (key: value lines), found " + describe(value));
        this.json = o;
        this.path = path;
    }

    String key(String name) { return path.isEmpty() ? name : path + "." + name; }

    private Object value(String name) {
        readKeys.add(name);
        return json.getValue(name);
    }

    String id() {
        Object v = value("id");
        if (v == null) throw new ConfigException(key("id"), "missing (required)");
        if (!(v instanceof String s) || !Names.valid(s)) {
            throw new ConfigException(key("id"), Names.expectation(Names.MAX) + ", found " + describe(v));
        }
        return s;
    }

    boolean bool(String name, boolean def) {
        Object v = value(name);
        if (v == null) return def;
        if (v instanceof Boolean b) return b;
        throw new ConfigException(key(name), "expected true or false, found " + describe(v));
    }

    int integer(String name, int def, int min, int max) {
        Object v = value(name);
        if (v == null) return def;
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()) && n.doubleValue() >= min && n.doubleValue() <= max) {
            return n.intValue();
        }
        throw new ConfigException(key(name), "expected an integer in " + min + ".." + max + ", found " + describe(v));
    }

    double number(String name, double def, double min, double max) {
        Object v = value(name);
        if (v == null) return def;
        if (v instanceof Number n && n.doubleValue() >= min && n.doubleValue() <= max) return n.doubleValue();
        throw new ConfigException(key(name), "expected a number in " + min + ".." + max + ", found " + describe(v));
    }

    /** Class names: absent or empty means every class. */
    List<String> classes() {
        Object v = value("classes");
        List<String> out = new ArrayList<>();
        if (v == null) return out;
        if (!(v instanceof JsonArray a)) throw new ConfigException(key("classes"), "expected a list of class names, found " + describe(v));
        for (int i = 0; i < a.size(); i++) {
            Object item = a.getValue(i);
            if (!(item instanceof String s) || s.isBlank()) {
                throw new ConfigException(key("classes") + "[" + i + "]", "expected a class name (text), found " + describe(item));
            }
            out.add(s.strip());
        }
        return out;
    }

    Point point(String name, boolean normalized) {
        Object v = value(name);
        if (v == null) throw new ConfigException(key(name), "missing (required)");
        return point(v, key(name), normalized);
    }

    /** The polygon's corners, each checked; the polygon as a whole is checked by {@link Zone#polygonProblem}. */
    List<Point> polygon(String name, boolean normalized) {
        Object v = value(name);
        if (v == null) throw new ConfigException(key(name), "missing (required)");
        if (!(v instanceof JsonArray a)) throw new ConfigException(key(name), "expected a list of points [[x, y], ...], found " + describe(v));
        // counted before anything else is done with the points: 80,000 of them are refused at once
        if (a.size() > Zone.MAX_POINTS) throw new ConfigException(key(name), "expected at most " + Zone.MAX_POINTS + " points, found " + a.size());
        List<Point> points = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) points.add(point(a.getValue(i), key(name) + "[" + i + "]", normalized));
        String problem = Zone.polygonProblem(points);
        if (problem != null) throw new ConfigException(key(name), problem);
        return points;
    }

    private static Point point(Object v, String key, boolean normalized) {
        if (!(v instanceof JsonArray a) || a.size() != 2 || !(a.getValue(0) instanceof Number x) || !(a.getValue(1) instanceof Number y)) {
            throw new ConfigException(key, "expected a point [x, y] of two numbers, found " + describe(v));
        }
        Point p = new Point(x.doubleValue(), y.doubleValue());
        String problem = Zone.coordinateProblem(p, normalized);
        if (problem != null) throw new ConfigException(key, problem);
        return p;
    }

    /** Fails on keys nobody read: a typo should not silently keep the default. */
    void finish() {
        for (String k : json.fieldNames()) {
            if (!readKeys.contains(k)) {
                throw new ConfigException(key(k), "unknown key (known here: " + String.join(", ", new TreeSet<>(readKeys)) + ")");
            }
        }
    }

    static String describe(Object v) {
        if (v == null) return "nothing";
        if (v instanceof JsonObject) return "a section";
        if (v instanceof JsonArray a) {
            String text = a.encode();
            return text.length() <= 80 ? text : text.substring(0, 80) + "... (" + text.length() + " characters)";
        }
        if (v instanceof String s) return Names.quoted(s);   // escaped and cut: a 10 KB value is not echoed whole
        return String.valueOf(v);
    }
}
