package io.argus.pipeline.config;

import io.argus.tracking.Anchor;
import io.argus.tracking.Line;
import io.argus.tracking.Point;
import io.argus.tracking.SceneRules;
import io.argus.tracking.Zone;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A camera's zones, lines and anchor ({@link SceneRules}) as JSON, both ways: read from the config file (through the
 * camera's {@link ConfigNode}), a REST body, a cluster map or a kept file, every value checked and every error a
 * {@link ConfigException} naming the key path (ids with {@link io.argus.pipeline.config.Names}, by {@link RuleReader});
 * written as the same JSON, which reads back to equal rules.
 */
public final class SceneRulesJson {
    private SceneRulesJson() {}

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
        camera.noteWhole("zones");
        camera.noteWhole("lines");
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
        for (RuleReader r : items(json, keyPath, SceneRules.MAX_ZONES, "zones")) {
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
        for (RuleReader r : items(json, keyPath, SceneRules.MAX_LINES, "lines")) {
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
        int[] twice = SceneRules.repeatedId(zones, lines);
        if (twice == null) return;
        String id = twice[1] < zones.size() ? zones.get(twice[1]).id() : lines.get(twice[1] - zones.size()).id();
        throw new ConfigException(idKey(twice[1], zones.size(), zonesKey, linesKey), "expected an id no other zone or line "
                + "of this camera has, found \"" + id + "\" (also " + idKey(twice[0], zones.size(), zonesKey, linesKey) + ")");
    }

    /** The key of the id at a position of {@link SceneRules#repeatedId}: zones first, then lines. */
    private static String idKey(int position, int zoneCount, String zonesKey, String linesKey) {
        return position < zoneCount ? zonesKey + "[" + position + "].id" : linesKey + "[" + (position - zoneCount) + "].id";
    }

    /** {@code {"zones": [...], "lines": [...], "anchor": "bottom_center"}}: {@link #fromJson} reads it back. */
    public static JsonObject toJson(SceneRules rules) {
        return new JsonObject().put("zones", zonesJson(rules.zones())).put("lines", linesJson(rules.lines()))
                .put("anchor", rules.anchor().configName());
    }

    public static JsonArray zonesJson(List<Zone> zones) {
        JsonArray a = new JsonArray();
        for (Zone z : zones) a.add(toJson(z));
        return a;
    }

    public static JsonArray linesJson(List<Line> lines) {
        JsonArray a = new JsonArray();
        for (Line l : lines) a.add(toJson(l));
        return a;
    }

    /** The zone as written in YAML or a REST body ({@link #zonesFromJson} reads it back). */
    public static JsonObject toJson(Zone zone) {
        JsonArray points = new JsonArray();
        for (Point p : zone.polygon()) points.add(toJson(p));
        return new JsonObject().put("id", zone.id()).put("polygon", points).put("normalized", zone.normalized())
                .put("classes", new JsonArray(new ArrayList<>(zone.classes()))).put("inertia", zone.inertia())
                .put("loiterSeconds", zone.loiterSeconds());
    }

    /** The line as written in YAML or a REST body ({@link #linesFromJson} reads it back). */
    public static JsonObject toJson(Line line) {
        return new JsonObject().put("id", line.id()).put("from", toJson(line.from())).put("to", toJson(line.to()))
                .put("normalized", line.normalized()).put("classes", new JsonArray(new ArrayList<>(line.classes())))
                .put("inertia", line.inertia());
    }

    /** {@code [x, y]}; whole numbers are written without a fraction, as they were most likely typed. */
    public static JsonArray toJson(Point p) {
        return new JsonArray().add(Point.plain(p.x())).add(Point.plain(p.y()));
    }
}
