package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.SceneRulesJson;
import io.argus.testkit.Budget;
import io.argus.tracking.Anchor;
import io.argus.tracking.Line;
import io.argus.tracking.Point;
import io.argus.tracking.SceneRules;
import io.argus.tracking.Zone;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Zones and lines from YAML (through a camera's ConfigNode) and REST bodies: values, defaults, key-path errors. */
@Budget(seconds = 5)
class SceneRulesJsonTest {
    /** The camera of docs/tracking.md, as the YAML loader gives it. */
    static JsonObject door() {
        return new JsonObject("""
                {"id": "door", "url": "rtsp://cam/1",
                 "zones": [{"id": "porch", "polygon": [[100, 400], [600, 400], [600, 700], [100, 700]],
                            "classes": ["person"], "inertia": 3, "loiterSeconds": 10},
                           {"id": "drive-way_2", "polygon": [[0.1, 0.1], [0.5, 0.1], [0.3, 0.4]], "normalized": true}],
                 "lines": [{"id": "gate", "from": [50, 300], "to": [700, 300], "classes": ["person", "car"]}],
                 "anchor": "center"}""");
    }

    static ConfigNode cameraNode(JsonObject camera, Map<String, String> env) {
        return new ConfigNode("cameras[0]", camera, env, new HashSet<>(), Path.of("."));
    }

    @Test
    void readsACameraOfTheConfigFile() {
        ConfigNode node = cameraNode(door(), Map.of());
        SceneRules rules = SceneRulesJson.read(node, door());
        assertEquals(Anchor.CENTER, rules.anchor());
        Zone porch = rules.zones().get(0);
        assertEquals("porch", porch.id());
        assertEquals(List.of(new Point(100, 400), new Point(600, 400), new Point(600, 700), new Point(100, 700)), porch.polygon());
        assertEquals(List.of("person"), porch.classes());
        assertEquals(3, porch.inertia());
        assertEquals(10, porch.loiterSeconds());
        assertFalse(porch.normalized());
        Zone drive = rules.zones().get(1);
        assertTrue(drive.normalized());
        assertEquals(List.of(), drive.classes(), "absent: every class");
        assertEquals(Zone.DEFAULT_INERTIA, drive.inertia());
        assertEquals(0, drive.loiterSeconds(), "absent: no loitering");
        Line gate = rules.lines().get(0);
        assertEquals(new Point(50, 300), gate.from());
        assertEquals(new Point(700, 300), gate.to());
        assertEquals(List.of("person", "car"), gate.classes());

        // the camera reader reads its own keys and then finishes: zones, lines and anchor must count as read
        node.string("id", null);
        node.string("url", null);
        node.finish();
        ConfigNode typo = cameraNode(door().put("zonez", new JsonArray()), Map.of());
        SceneRulesJson.read(typo, door());
        typo.string("id", null);
        typo.string("url", null);
        ConfigException e = assertThrows(ConfigException.class, typo::finish);
        assertEquals("cameras[0].zonez", e.key());
    }

    @Test
    void aCameraWithoutRulesHasNoneAndTheBottomCentreAnchor() {
        JsonObject bare = new JsonObject().put("id", "a");
        SceneRules rules = SceneRulesJson.read(cameraNode(bare, Map.of()), bare);
        assertEquals(SceneRules.NONE, rules);
        assertEquals(Anchor.BOTTOM_CENTER, rules.anchor());
    }

    @Test
    void theAnchorMayComeFromTheEnvironment() {
        SceneRules rules = SceneRulesJson.read(cameraNode(door(), Map.of("ARGUS_CAMERAS_0_ANCHOR", "top_center")), door());
        assertEquals(Anchor.TOP_CENTER, rules.anchor());
    }

    @Test
    void jsonRoundTrips() {
        SceneRules rules = SceneRulesJson.read(cameraNode(door(), Map.of()), door());
        JsonObject json = SceneRulesJson.toJson(rules);
        assertEquals(rules, SceneRulesJson.fromJson(new JsonObject(json.encode()), ""));
        assertEquals("[[100,400],[600,400],[600,700],[100,700]]", json.getJsonArray("zones").getJsonObject(0).getJsonArray("polygon").encode());
        assertEquals(rules.zones(), SceneRulesJson.zonesFromJson(new JsonArray(SceneRulesJson.zonesJson(rules.zones()).encode()), "zones"));
        assertEquals(rules.lines(), SceneRulesJson.linesFromJson(new JsonArray(SceneRulesJson.linesJson(rules.lines()).encode()), "lines"));
    }

    /** Edits the door camera's JSON, reads it, and returns the error. */
    static ConfigException error(Consumer<JsonObject> edit) {
        JsonObject camera = door();
        edit.accept(camera);
        return assertThrows(ConfigException.class, () -> SceneRulesJson.read(cameraNode(camera, Map.of()), camera));
    }

    static JsonObject zone(JsonObject camera, int i) { return camera.getJsonArray("zones").getJsonObject(i); }

    static JsonObject line(JsonObject camera, int i) { return camera.getJsonArray("lines").getJsonObject(i); }

    static void assertError(String key, String inMessage, ConfigException e) {
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().contains(inMessage), e.getMessage());
    }

    @Test
    void errorsNameTheKeyPathWithExpectedAndFound() {
        assertError("cameras[0].zones[1].polygon[2]", "expected a point [x, y] of two numbers, found [0.3,\"a\"]",
                error(c -> zone(c, 1).put("polygon", new JsonArray("[[0.1, 0.1], [0.5, 0.1], [0.3, \"a\"]]"))));
        assertError("cameras[0].zones[1].polygon[2]", "expected coordinates in 0..1 (normalized: true), found [0.3,1.4]",
                error(c -> zone(c, 1).put("polygon", new JsonArray("[[0.1, 0.1], [0.5, 0.1], [0.3, 1.4]]"))));
        assertError("cameras[0].zones[0].polygon", "expected at least 3 points, found 2",
                error(c -> zone(c, 0).put("polygon", new JsonArray("[[0, 0], [10, 0]]"))));
        assertError("cameras[0].zones[0].polygon", "expected a polygon with an area, found all points on one line",
                error(c -> zone(c, 0).put("polygon", new JsonArray("[[0, 0], [10, 10], [20, 20], [5, 5]]"))));
        assertError("cameras[0].zones[0].polygon", "expected edges that do not cross, found edge 1-2 meeting edge 3-0",
                error(c -> zone(c, 0).put("polygon", new JsonArray("[[0, 0], [40, 0], [0, 10], [10, 30]]"))));
        assertError("cameras[0].zones[0].polygon", "the polygon closes itself",
                error(c -> zone(c, 0).put("polygon", new JsonArray("[[0, 0], [20, 0], [20, 20], [0, 0]]"))));
        assertError("cameras[0].zones[0].polygon", "missing (required)", error(c -> zone(c, 0).remove("polygon")));
        assertError("cameras[0].zones[0].id", "expected a name of 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, found \"a b\"",
                error(c -> zone(c, 0).put("id", "a b")));
        assertError("cameras[0].zones[0].id", "found \"" + "x".repeat(65) + "\"", error(c -> zone(c, 0).put("id", "x".repeat(65))));
        assertError("cameras[0].lines[0].id", "expected an id no other zone or line of this camera has, found \"porch\" (also cameras[0].zones[0].id)",
                error(c -> line(c, 0).put("id", "porch")));
        assertError("cameras[0].zones[1].id", "found \"porch\" (also cameras[0].zones[0].id)", error(c -> zone(c, 1).put("id", "porch")));
        assertError("cameras[0].zones[0].classes[1]", "expected a class name (text), found 3",
                error(c -> zone(c, 0).put("classes", new JsonArray().add("person").add(3))));
        assertError("cameras[0].zones[0].inertia", "expected an integer in 1..100000, found 0", error(c -> zone(c, 0).put("inertia", 0)));
        assertError("cameras[0].zones[0].inertia", "found 2.5", error(c -> zone(c, 0).put("inertia", 2.5)));
        assertError("cameras[0].zones[0].loiterSeconds", "expected a number in 0.0..1.0E9, found -1",
                error(c -> zone(c, 0).put("loiterSeconds", -1)));
        assertError("cameras[0].zones[0].polygn", "unknown key (known here: classes, id, inertia, loiterSeconds, normalized, polygon)",
                error(c -> zone(c, 0).put("polygn", 1)));
        assertError("cameras[0].lines[0].to", "expected a point other than from [50,300], found [50,300]",
                error(c -> line(c, 0).put("to", new JsonArray("[50, 300]"))));
        assertError("cameras[0].lines[0].from", "expected a point [x, y] of two numbers, found [50]",
                error(c -> line(c, 0).put("from", new JsonArray("[50]"))));
        assertError("cameras[0].lines[0].from", "missing (required)", error(c -> line(c, 0).remove("from")));
        assertError("cameras[0].anchor", "expected one of bottom_center, center, top_center, found \"feet\"",
                error(c -> c.put("anchor", "feet")));
        assertError("cameras[0].zones", "expected a list", error(c -> c.put("zones", "porch")));
        assertError("cameras[0].lines[0]", "expected a section", error(c -> c.put("lines", new JsonArray().add("gate"))));
    }

    @Test
    void restBodiesNameTheirOwnKeys() {
        ConfigException e = assertThrows(ConfigException.class, () -> SceneRulesJson.zonesFromJson(
                new JsonArray("[{\"id\": \"a\", \"polygon\": [[0, 0], [1, 0], [1, 1]], \"normalized\": \"yes\"}]"), "zones"));
        assertError("zones[0].normalized", "expected true or false, found \"yes\"", e);
        assertError("lines[0].to", "missing (required)", assertThrows(ConfigException.class,
                () -> SceneRulesJson.linesFromJson(new JsonArray("[{\"id\": \"g\", \"from\": [0, 0]}]"), "lines")));
        assertError("anchor", "found \"feet\"", assertThrows(ConfigException.class,
                () -> SceneRulesJson.fromJson(new JsonObject().put("anchor", "feet"), "")));
        assertError("lanes", "unknown key", assertThrows(ConfigException.class,
                () -> SceneRulesJson.fromJson(new JsonObject().put("lanes", new JsonArray()), "")));
        JsonObject clash = SceneRulesJson.toJson(SceneRulesJson.read(cameraNode(door(), Map.of()), door()));
        clash.getJsonArray("lines").getJsonObject(0).put("id", "porch");
        assertError("lines[0].id", "(also zones[0].id)", assertThrows(ConfigException.class,
                () -> SceneRulesJson.fromJson(clash, "")));
    }
}
