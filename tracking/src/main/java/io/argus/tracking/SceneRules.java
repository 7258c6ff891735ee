package io.argus.pipeline.tracking;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.Names;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A camera's zones and lines and the anchor point that places objects in them (YAML {@code cameras[i].zones},
 * {@code .lines}, {@code .anchor}; REST {@code /api/cameras/{id}/zones} and {@code /lines}). Ids are unique across
 * zones and lines of a camera: counts are published per id ({@code argus/<camera>/<zone-or-line>/<class>/count}).
 */
public record SceneRules(List<Zone> zones, List<Line> lines, Anchor anchor) {
    /** The most zones a camera may have; each is looked at for every tracked object of every frame. */
    public static final int MAX_ZONES = 100;
    /** The most lines a camera may have. */
    public static final int MAX_LINES = 100;

    /** No zones, no lines. */
    public static final SceneRules NONE = new SceneRules(List.of(), List.of(), Anchor.BOTTOM_CENTER);

    public SceneRules {
        zones = List.copyOf(zones);
        lines = List.copyOf(lines);
        Objects.requireNonNull(anchor, "anchor");
        if (zones.size() > MAX_ZONES) throw new IllegalArgumentException("expected at most " + MAX_ZONES + " zones, found " + zones.size());
        if (lines.size() > MAX_LINES) throw new IllegalArgumentException("expected at most " + MAX_LINES + " lines, found " + lines.size());
        checkUniqueIds(zones, "zones", lines, "lines");
    }

    /**
     * Reads the keys {@code zones}, {@code lines} and {@code anchor} of a camera of the config file, marking them read
     * on {@code camera} so that its {@link ConfigNode#finish()} (called after this) accepts them. {@code cameraJson} is
     * that camera's object in the file (ConfigNode has no reader for lists of points); null reads as no zones and no
     * lines. The anchor may be overridden from the environment ({@code ARGUS_CAMERAS_0_ANCHOR}), zones and lines come
     * from the file only.
     */
    public static SceneRules read(ConfigNode camera, JsonObject cameraJson) {
        camera.list("zones");   // marks the key read; fails, naming the key, unless a list of sections
        camera.list("lines");
        String anchorName = camera.oneOf("anchor", Anchor.BOTTOM_CENTER.configName(),
                Anchor.BOTTOM_CENTER.configName(), Anchor.CENTER.configName(), Anchor.TOP_CENTER.configName());
        JsonObject json = cameraJson != null ? cameraJson : new JsonObject();
        return rules(json.getValue("zones"), json.getValue("lines"), Anchor.byName(anchorName), camera.key("zones"), camera.key("lines"));
    }

    /**
     * Rules from a REST body {@code {"zones": [...], "lines": [...], "anchor": "bottom_center"}} (each key optional);
     * errors name keys under {@code keyPath} ("" for a body of its own).
     */
    public static SceneRules fromJson(JsonObject json, String keyPath) {
        RuleReader body = new RuleReader(json, keyPath);
        String anchorKey = body.key("anchor");
        Object anchorName = json.getValue("anchor", Anchor.BOTTOM_CENTER.configName());
        Anchor anchor = anchorName instanceof String s ? Anchor.byName(s) : null;
        if (anchor == null) {
            throw new ConfigException(anchorKey, "expected one of " + Anchor.names() + ", found " + RuleReader.describe(anchorName));
        }
        for (String k : json.fieldNames()) {
            if (!k.equals("zones") && !k.equals("lines") && !k.equals("anchor")) {
                throw new ConfigException(body.key(k), "unknown key (known here: anchor, lines, zones)");
            }
        }
        return rules(json.getValue("zones"), json.getValue("lines"), anchor, body.key("zones"), body.key("lines"));
    }

    private static SceneRules rules(Object zonesJson, Object linesJson, Anchor anchor, String zonesKey, String linesKey) {
        List<Zone> zones = zonesFromJson(zonesJson, zonesKey);
        List<Line> lines = linesFromJson(linesJson, linesKey);
        checkUniqueIds(zones, zonesKey, lines, linesKey);
        return new SceneRules(zones, lines, anchor);
    }

    /** The zones of a list (a REST body of {@code /zones}: pass "zones" as keyPath); null reads as none. */
    public static List<Zone> zonesFromJson(Object json, String keyPath) {
        List<Zone> zones = new ArrayList<>();
        for (RuleReader r : items(json, keyPath, MAX_ZONES, "zones")) {
            String id = r.id();
            boolean normalized = r.bool("normalized", false);
            List<Point> polygon = r.polygon("polygon", normalized);
            List<String> classes = r.classes();
            int inertia = r.integer("inertia", Zone.DEFAULT_INERTIA, 1, 100_000);
            double loiterSeconds = r.number("loiterSeconds", 0, 0, 1e9);
            r.finish();
            zones.add(new Zone(id, polygon, normalized, classes, inertia, loiterSeconds));
        }
        checkUniqueIds(zones, keyPath, List.of(), "");
        return zones;
    }

    /** The lines of a list (a REST body of {@code /lines}: pass "lines" as keyPath); null reads as none. */
    public static List<Line> linesFromJson(Object json, String keyPath) {
        List<Line> lines = new ArrayList<>();
        for (RuleReader r : items(json, keyPath, MAX_LINES, "lines")) {
            String id = r.id();
            boolean normalized = r.bool("normalized", false);
            Point from = r.point("from", normalized);
            Point to = r.point("to", normalized);
            if (from.equals(to)) throw new ConfigException(r.key("to"), "expected a point other than from " + from + ", found " + to);
            List<String> classes = r.classes();
            int inertia = r.integer("inertia", Line.DEFAULT_INERTIA, 1, 100_000);
            r.finish();
            lines.add(new Line(id, from, to, normalized, classes, inertia));
        }
        checkUniqueIds(List.of(), "", lines, keyPath);
        return lines;
    }

    /** The items of a list of at most {@code max} {@code what}, each to be read. */
    private static List<RuleReader> items(Object json, String keyPath, int max, String what) {
        List<RuleReader> out = new ArrayList<>();
        if (json == null) return out;
        if (!(json instanceof JsonArray a)) throw new ConfigException(keyPath, "expected a list (- items), found " + RuleReader.describe(json));
        if (a.size() > max) throw new ConfigException(keyPath, "expected at most " + max + " " + what + " per camera, found " + a.size());
        for (int i = 0; i < a.size(); i++) out.add(new RuleReader(a.getValue(i), keyPath + "[" + i + "]"));
        return out;
    }

    /** Fails on an id used twice among zones and lines, naming the second one's key (under zonesKey or linesKey). */
    private static void checkUniqueIds(List<Zone> zones, String zonesKey, List<Line> lines, String linesKey) {
        Map<String, String> firstKey = new HashMap<>();
        for (int i = 0; i < zones.size() + lines.size(); i++) {
            String id = i < zones.size() ? zones.get(i).id() : lines.get(i - zones.size()).id();
            String key = i < zones.size() ? zonesKey + "[" + i + "].id" : linesKey + "[" + (i - zones.size()) + "].id";
            String earlier = firstKey.putIfAbsent(id, key);
            if (earlier != null) {
                throw new ConfigException(key, "expected an id no other zone or line of this camera has, found \"" + id
                        + "\" (also " + earlier + ")");
            }
        }
    }

    /** A zone's or line's id is a name ({@link Names}): it is published in MQTT topics and Prometheus labels. */
    static void checkId(String id) {
        if (!Names.valid(id)) throw new IllegalArgumentException("id: " + Names.expectation(Names.MAX) + ", found " + Names.quoted(id));
    }

    public SceneRules withZones(List<Zone> newZones) { return new SceneRules(newZones, lines, anchor); }

    public SceneRules withLines(List<Line> newLines) { return new SceneRules(zones, newLines, anchor); }

    public SceneRules withAnchor(Anchor newAnchor) { return new SceneRules(zones, lines, newAnchor); }

    public Optional<Zone> zone(String id) { return zones.stream().filter(z -> z.id().equals(id)).findFirst(); }

    public Optional<Line> line(String id) { return lines.stream().filter(l -> l.id().equals(id)).findFirst(); }

    public JsonArray zonesJson() {
        JsonArray a = new JsonArray();
        for (Zone z : zones) a.add(z.toJson());
        return a;
    }

    public JsonArray linesJson() {
        JsonArray a = new JsonArray();
        for (Line l : lines) a.add(l.toJson());
        return a;
    }

    /** {@code {"zones": [...], "lines": [...], "anchor": "bottom_center"}}: {@link #fromJson} reads it back. */
    public JsonObject toJson() {
        return new JsonObject().put("zones", zonesJson()).put("lines", linesJson()).put("anchor", anchor.configName());
    }
}
