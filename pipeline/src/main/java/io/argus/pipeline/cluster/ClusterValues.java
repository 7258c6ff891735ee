package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.SceneRulesJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a valid value of each of Argus's cluster maps is ({@link SealedMap.Format}): read after it opened with the
 * cluster's key, so a value that fails here was written by a node (one of another version, or a bug), yet it is
 * still ignored rather than trusted. Each check names the field, what was expected and what was found, never a
 * camera's address (it may hold credentials).
 */
final class ClusterValues {
    private ClusterValues() {}

    /** Scene rules and counts: kept by the events verticle (docs/tracking.md). */
    static final String SCENE_RULES_MAP = "argus.scene-rules";
    static final String COUNTS_MAP = "argus.counts";

    /** Every map Argus keeps in the cluster: each has a format below. */
    static final List<String> MAPS = List.of(CameraCatalog.MAP, Lease.MAP, NodeDirectory.MAP, CameraStates.MAP, ClusterChanges.MAP, ModelCatalog.MAP,
            TrainerSingleton.MAP, ModelVersionSync.LATEST, SCENE_RULES_MAP, COUNTS_MAP);

    /** A model version: a content hash ({@code sha256:<hex>}) or a name. */
    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0," + (Names.DERIVED_MAX - 1) + "}");
    private static final Pattern HOST_PORT = Pattern.compile("([A-Za-z0-9._-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}\\]):([0-9]{1,5})");

    /** The format of {@code map}'s values as JSON text (a map Argus does not keep has none). */
    static SealedMap.Format<String> texts(String map) {
        return switch (map) {
            case Lease.MAP -> text("camera id", (key, plain) -> Lease.parse(plain));
            case TrainerSingleton.MAP -> text("model id", (key, plain) -> Lease.parse(plain));
            case CameraCatalog.MAP -> text("camera id", ClusterValues::camera);
            case NodeDirectory.MAP -> text("node id", ClusterValues::node);
            case CameraStates.MAP -> text("camera id", (key, plain) -> {
                JsonObject j = object(plain, "camera state");
                if (!(j.getValue("paused") instanceof Boolean)) throw invalid("camera state", "paused", "true or false", j.getValue("paused"));
            });
            case ModelCatalog.MAP -> text("model id", ClusterValues::model);
            case ModelVersionSync.LATEST -> text("model id", ClusterValues::announcement);
            default -> throw new IllegalArgumentException("no format for cluster map " + map + " (known: " + MAPS + ")");
        };
    }

    /** The format of {@code map}'s values as JSON objects. */
    static SealedMap.Format<JsonObject> objects(String map) {
        return switch (map) {
            case SCENE_RULES_MAP -> object("camera id", (key, j) -> SceneRulesJson.fromJson(j, "cameras." + key));
            case COUNTS_MAP -> object("camera id", ClusterValues::counts);
            case ClusterChanges.MAP -> object("camera id", CameraChange::fromJson);
            default -> throw new IllegalArgumentException("no object format for cluster map " + map);
        };
    }

    interface Check<T> {
        void check(String key, T value);
    }

    private static SealedMap.Format<String> text(String keyKind, Check<String> check) {
        return new SealedMap.Format<>() {
            @Override public String keyKind() { return keyKind; }

            @Override
            public String read(String key, String plain) {
                check.check(key, plain);
                return plain;
            }

            @Override public String write(String value) { return value; }
        };
    }

    private static SealedMap.Format<JsonObject> object(String keyKind, Check<JsonObject> check) {
        return new SealedMap.Format<>() {
            @Override public String keyKind() { return keyKind; }

            @Override
            public JsonObject read(String key, String plain) {
                JsonObject j = object(plain, keyKind.replace(" id", ""));
                check.check(key, j);
                return j;
            }

            @Override public String write(JsonObject value) { return value.encode(); }
        };
    }

    /** A camera of the list: its definition (what a node runs) and its public form, both of this id. */
    private static void camera(String key, String plain) {
        JsonObject j = object(plain, "camera entry");
        JsonObject definition = child(j, "definition", "camera entry");
        JsonObject shown = child(j, "public", "camera entry");
        sameId(key, definition, "camera entry definition");
        sameId(key, shown, "camera entry public");
        if (!(definition.getValue("url") instanceof String url) || url.isBlank()) {
            // the url itself is never shown: it holds credentials
            throw new IllegalArgumentException("camera entry definition: \"url\" expected a camera address, found "
                    + (definition.getValue("url") == null ? "nothing" : "something else"));
        }
        if (!(definition.getValue("model") instanceof String model) || !Names.valid(model)) {
            throw invalid("camera entry definition", "model", "a model id", definition.getValue("model"));
        }
    }

    /** A node's directory entry: its id (the key), addresses, weight. */
    private static void node(String key, String plain) {
        JsonObject j = object(plain, "node entry");
        sameId(key, j, "node entry");
        hostPort(j, "cluster", "node entry");
        hostPort(j, "http", "node entry");
        Object w = j.getValue("weight");
        if (!(w instanceof Number n) || !Double.isFinite(n.doubleValue()) || n.doubleValue() < 0 || n.doubleValue() > 1000) {
            throw invalid("node entry", "weight", "a number in 0..1000", w);
        }
        if (j.containsKey("leaving") && !(j.getValue("leaving") instanceof Boolean)) {
            throw invalid("node entry", "leaving", "true or false", j.getValue("leaving"));
        }
        if (j.containsKey("refusedModels")) {
            JsonObject refused = child(j, "refusedModels", "node entry");
            for (String model : refused.fieldNames()) {
                Names.require("node entry: refusedModels (a model id)", model);
                if (!(refused.getValue(model) instanceof String)) throw invalid("node entry refusedModels", model, "a reason", refused.getValue(model));
            }
        }
    }

    /** What a model id loads on the node that registered it first. */
    private static void model(String key, String plain) {
        JsonObject j = object(plain, "model entry");
        for (String field : new String[] {"cfg", "weights", "names", "input"}) {
            if (!(j.getValue(field) instanceof String)) throw invalid("model entry", field, "a text", j.getValue(field));
        }
        if (!(j.getValue("node") instanceof String node) || !Names.valid(node)) throw invalid("model entry", "node", "a node id", j.getValue("node"));
    }

    /** The last promoted version of a model. */
    private static void announcement(String key, String plain) {
        JsonObject j = object(plain, "model version");
        if (!key.equals(j.getValue("model"))) throw invalid("model version", "model", "the key " + Names.quoted(key), j.getValue("model"));
        if (!(j.getValue("version") instanceof String v) || !VERSION.matcher(v).matches()) {
            throw invalid("model version", "version", "a version (\"sha256:<hex>\" or a name)", j.getValue("version"));
        }
        if (!(j.getValue("node") instanceof String node) || !Names.valid(node)) throw invalid("model version", "node", "a node id", j.getValue("node"));
        if (j.containsKey("http")) hostPort(j, "http", "model version");
    }

    /** A camera's counts: totals per zone or line and class, never negative. */
    private static void counts(String key, JsonObject j) {
        if (!key.equals(j.getValue("cameraId"))) throw invalid("counts", "cameraId", "the key " + Names.quoted(key), j.getValue("cameraId"));
        for (String part : new String[] {"zones", "lines"}) {
            Object list = j.getValue(part);
            if (list == null) continue;
            if (!(list instanceof JsonArray a)) throw invalid("counts", part, "a list", list);
            for (Object o : a) {
                if (!(o instanceof JsonObject c)) throw invalid("counts", part, "a list of objects", o);
                String name = part.equals("zones") ? "zone" : "line";
                if (!(c.getValue(name) instanceof String)) throw invalid("counts " + part, name, "an id", c.getValue(name));
                if (!(c.getValue("className") instanceof String)) throw invalid("counts " + part, "className", "a class name", c.getValue("className"));
                for (String n : part.equals("zones") ? new String[] {"entered"} : new String[] {"in", "out"}) {
                    Object v = c.getValue(n, 0L);
                    if (!(v instanceof Integer || v instanceof Long) || ((Number) v).longValue() < 0) {
                        throw invalid("counts " + part, n, "an integer >= 0", v);
                    }
                }
            }
        }
    }

    private static JsonObject object(String plain, String what) {
        try {
            return new JsonObject(plain);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(what + ": not a JSON object");
        }
    }

    private static JsonObject child(JsonObject j, String field, String what) {
        if (j.getValue(field) instanceof JsonObject c) return c;
        throw invalid(what, field, "an object", j.getValue(field));
    }

    private static void sameId(String key, JsonObject j, String what) {
        if (!key.equals(j.getValue("id"))) throw invalid(what, "id", "the key " + Names.quoted(key), j.getValue("id"));
    }

    private static void hostPort(JsonObject j, String field, String what) {
        Object v = j.getValue(field);
        var m = v instanceof String s ? HOST_PORT.matcher(s) : null;
        if (m == null || !m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
            throw invalid(what, field, "host:port", v);
        }
    }

    private static IllegalArgumentException invalid(String what, String field, String expected, Object found) {
        String shown = found == null ? "nothing" : found instanceof String s ? Names.quoted(s) : "a " + found.getClass().getSimpleName();
        return new IllegalArgumentException(what + ": \"" + field + "\" expected " + expected + ", found " + shown);
    }
}
