package io.argus.pipeline.cluster;

import io.argus.pipeline.camera.CameraOverlay;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.SceneRulesJson;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What REST made of one camera, as the cluster records it ({@link ClusterChanges}): added with a definition, removed,
 * or the config file's camera as it is; paused or not; the zones and lines drawn on it (null: none drawn). Stamped with
 * the digest of the config file's camera of that id when the change was made ({@code config}, null when the file had
 * none), as a single node's overlay is ({@link CameraOverlay}), and with a sequence number: of two records of one
 * camera (two nodes' files after a whole-cluster restart) the higher one is the newer and wins.
 *
 * <pre>{@code
 * {"seq": 1764393000123, "config": "<sha-256 hex or null>", "camera": {definition} or absent, "removed": false,
 *  "paused": true, "rules": {"zones": [...], "lines": [...]} or absent}
 * }</pre>
 *
 * <p>The sequence number is a hybrid clock: the wall clock in milliseconds, or one more than the camera's previous
 * record when that is higher. It keeps rising across a restart of the whole cluster (a counter kept in memory would
 * start again from zero there, and old files would then win), and each camera's changes are strictly ordered however
 * the nodes' clocks disagree, since each change reads the record it replaces.
 */
record CameraChange(String camera, long seq, String config, JsonObject definition, boolean removed, boolean paused, JsonObject rules) {
    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    /** A camera added (or defined anew) at run time; {@code inFile}: the config file's camera of that id, or null. */
    static CameraChange added(CameraConfig c, CameraConfig inFile, CameraChange previous, long nowMs) {
        return new CameraChange(c.id(), next(previous, nowMs), digest(inFile), c.definition(), false, false, null);
    }

    /** A camera removed at run time; {@code inFile}: the config file's camera of that id, or null. */
    static CameraChange removed(String camera, CameraConfig inFile, CameraChange previous, long nowMs) {
        return new CameraChange(camera, next(previous, nowMs), digest(inFile), null, true, false, null);
    }

    /** The config file's camera {@code inFile} as it is: the base of its first pause or drawing. */
    static CameraChange ofFile(CameraConfig inFile) {
        return new CameraChange(inFile.id(), 0, digest(inFile), null, false, false, null);
    }

    CameraChange withPaused(boolean on, long nowMs) {
        return new CameraChange(camera, next(this, nowMs), config, definition, removed, on, rules);
    }

    CameraChange withRules(JsonObject drawn, long nowMs) {
        return new CameraChange(camera, next(this, nowMs), config, definition, removed, paused, drawn);
    }

    /** The sequence number of a change that follows {@code previous} (null: none) at {@code nowMs}. */
    static long next(CameraChange previous, long nowMs) {
        return previous == null ? Math.max(1, nowMs) : Math.max(nowMs, previous.seq + 1);
    }

    /** Whether this record is to replace {@code other} (null: no record): it is newer. */
    boolean newerThan(CameraChange other) { return other == null || seq > other.seq; }

    /**
     * Whether this change still holds beside the config file's camera of its id ({@code inFile}, null: none): the file
     * did not change that camera since (the digest is the same). Otherwise the file is the newer word.
     */
    boolean holdsBeside(CameraConfig inFile) { return Objects.equals(config, digest(inFile)); }

    /**
     * The config file's cameras the cluster is not to be seeded with, given the cluster's record: those removed at run
     * time, and those defined anew at run time (their record's definition is the one listed), each only while its
     * change holds beside the file ({@link #holdsBeside}).
     */
    static Set<String> unseeded(List<CameraConfig> configured, Map<String, CameraChange> record) {
        Set<String> out = new TreeSet<>();
        for (CameraConfig c : configured) {
            CameraChange change = record.get(c.id());
            if (change != null && change.holdsBeside(c) && (change.removed || change.definition != null)) out.add(c.id());
        }
        return out;
    }

    JsonObject toJson() {
        JsonObject j = new JsonObject().put("seq", seq).put("config", config);
        if (definition != null) j.put("camera", definition);
        j.put("removed", removed).put("paused", paused);
        if (rules != null) j.put("rules", rules);
        return j;
    }

    /**
     * The record of {@code camera} read from {@code j} (a cluster map's value, a node's file), checked field by field:
     * fails naming the field, what was expected and what was found (never an address: it may hold credentials).
     */
    static CameraChange fromJson(String camera, JsonObject j) {
        String what = "camera change " + Names.quoted(camera);
        if (!Names.valid(camera)) throw new IllegalArgumentException(what + ": not a camera id (" + Names.expectation(Names.MAX) + ")");
        Object seq = j.getValue("seq");
        if (!(seq instanceof Integer || seq instanceof Long) || ((Number) seq).longValue() <= 0) throw invalid(what, "seq", "an integer > 0", seq);
        Object config = j.getValue("config");
        if (config != null && !(config instanceof String s && DIGEST.matcher(s).matches())) {
            throw invalid(what, "config", "null or a SHA-256 digest (64 hex digits)", config);
        }
        boolean removed = flag(j, "removed", what);
        boolean paused = flag(j, "paused", what);
        Object camera0 = j.getValue("camera");
        JsonObject definition = null;
        if (camera0 != null) {
            if (!(camera0 instanceof JsonObject d)) throw invalid(what, "camera", "a camera definition (an object)", camera0);
            if (removed) throw invalid(what, "camera", "nothing for a removed camera", "a definition");
            if (!camera.equals(d.getValue("id"))) throw invalid(what, "camera.id", "the key " + Names.quoted(camera), d.getValue("id"));
            if (!(d.getValue("url") instanceof String url) || url.isBlank()) {
                throw new IllegalArgumentException(what + ": \"camera.url\" expected a camera address, found "
                        + (d.getValue("url") == null ? "nothing" : "something else"));
            }
            if (!(d.getValue("model") instanceof String model) || !Names.valid(model)) throw invalid(what, "camera.model", "a model id", d.getValue("model"));
            definition = d;
        }
        if (removed && paused) throw invalid(what, "paused", "false for a removed camera", true);
        Object rules0 = j.getValue("rules");
        JsonObject rules = null;
        if (rules0 != null) {
            if (!(rules0 instanceof JsonObject r)) throw invalid(what, "rules", "zones and lines (an object)", rules0);
            if (removed) throw invalid(what, "rules", "nothing for a removed camera", "zones or lines");
            try {
                SceneRulesJson.fromJson(r, "rules");
            } catch (ConfigException e) {
                throw new IllegalArgumentException(what + ": " + e.getMessage());
            }
            rules = r;
        }
        return new CameraChange(camera, ((Number) seq).longValue(), (String) config, definition, removed, paused, rules);
    }

    private static boolean flag(JsonObject j, String field, String what) {
        Object v = j.getValue(field, false);
        if (!(v instanceof Boolean b)) throw invalid(what, field, "true or false", v);
        return b;
    }

    private static String digest(CameraConfig c) { return c == null ? null : CameraOverlay.digest(c); }

    private static IllegalArgumentException invalid(String what, String field, String expected, Object found) {
        String shown = found == null ? "nothing" : found instanceof String s ? Names.quoted(s) : found instanceof Boolean || found instanceof Number
                ? found.toString() : "a " + found.getClass().getSimpleName();
        return new IllegalArgumentException(what + ": \"" + field + "\" expected " + expected + ", found " + shown);
    }
}
