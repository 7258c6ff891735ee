package io.argus.pipeline.cluster;

import io.argus.detector.io.AtomicFile;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.Names;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's copy of the cluster's record of run-time camera changes ({@link ClusterChanges}), so that the record
 * outlives a stop of every node: {@code <cacheDir>/state/cluster-cameras.json}, replaced whole on each change
 * ({@link AtomicFile}: temporary file, fsync, rename; owner-only, as added cameras' addresses may carry credentials).
 * Apart from the single node's overlay ({@code state/cameras.json}), which has no sequence numbers to merge by.
 *
 * <pre>{@code {"version": 1, "cameras": {"cam1": {change, as CameraChange#toJson}, ...}}}</pre>
 */
public final class ChangeMirror {
    static final int VERSION = 1;
    /** More records than any cluster keeps (cameras and the removals kept, {@link ClusterChanges#MAX_REMOVED}). */
    static final int MAX_RECORDS = 20_000;

    private ChangeMirror() {}

    public static Path file(Path cacheDir) { return cacheDir.resolve("state").resolve("cluster-cameras.json"); }

    /**
     * The records in {@code file}; none when there is no file. A file that cannot be read as one fails naming it and the
     * bad field: starting without it would bring back cameras removed and lose those added.
     */
    static Map<String, CameraChange> read(Path file) {
        Map<String, CameraChange> out = new TreeMap<>();
        if (!Files.exists(file)) return out;
        String hint = " (fix it or move it away: the cluster's cameras changed at run time are then forgotten, unless another node keeps them)";
        JsonObject j;
        try {
            j = new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException | DecodeException e) {
            throw new ConfigException(file.toString(), "not a record of camera changes (" + e.getMessage() + ")" + hint);
        }
        try {
            int version = j.getValue("version") instanceof Integer v ? v : 0;
            if (version != VERSION) throw new IllegalArgumentException("\"version\" expected " + VERSION + ", found " + j.getValue("version"));
            if (!(j.getValue("cameras") instanceof JsonObject cameras)) throw new IllegalArgumentException("\"cameras\" expected an object");
            if (cameras.size() > MAX_RECORDS) {
                throw new IllegalArgumentException("\"cameras\" expected at most " + MAX_RECORDS + " records, found " + cameras.size());
            }
            for (String id : cameras.fieldNames()) {
                if (!(cameras.getValue(id) instanceof JsonObject change)) throw new IllegalArgumentException("cameras." + io.argus.pipeline.config.Names.quoted(id) + ": expected an object");
                out.put(id, CameraChange.fromJson(id, change));
            }
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new ConfigException(file.toString(), "not a record of camera changes: " + e.getMessage() + hint);
        }
        return out;
    }

    /**
     * What this node's copy of the record says, one line per camera, for {@code argus config show}: which cameras were
     * added, removed, paused, or given zones and lines at run time, and whether the config file changed that camera
     * since (the file then wins). Names only, never a camera's address (it may carry credentials). No file: no lines;
     * an unreadable one fails naming it, as a start would.
     *
     * @param configured the config file's cameras
     */
    public static List<String> summary(Path cacheDir, List<CameraConfig> configured) {
        Map<String, CameraConfig> inFile = new TreeMap<>();
        for (CameraConfig c : configured) inFile.put(c.id(), c);
        List<String> out = new ArrayList<>();
        read(file(cacheDir)).forEach((id, c) -> {
            List<String> says = new ArrayList<>();
            if (c.removed()) says.add("removed");
            else if (c.definition() != null) says.add(inFile.containsKey(id) ? "defined anew" : "added");
            if (c.paused()) says.add("paused");
            if (c.rules() != null) says.add("zones and lines drawn");
            if (says.isEmpty()) says.add("resumed");
            String line = Names.quoted(id) + ": " + String.join(", ", says);
            if (!c.holdsBeside(inFile.get(id))) line += " (superseded: the config file changed this camera since, and wins)";
            out.add(line);
        });
        return out;
    }

    /** Replaces the file whole (blocking: on a worker). */
    static void write(Path file, Map<String, CameraChange> record) {
        JsonObject cameras = new JsonObject();
        new TreeMap<>(record).forEach((id, change) -> cameras.put(id, change.toJson()));
        AtomicFile.writeString(file, new JsonObject().put("version", VERSION).put("cameras", cameras).encodePrettily());
    }
}
