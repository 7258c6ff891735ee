package io.argus.pipeline.camera;

import io.argus.detector.io.AtomicFile;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes made to the camera list at run time (REST, or the dashboard through it), kept apart from the user's
 * config file, which Argus never rewrites: {@code <cacheDir>/state/cameras.json}, replaced whole on each change
 * ({@link AtomicFile}: temporary file, fsync, rename), owner-only (added cameras' addresses may carry credentials).
 *
 * <pre>{@code
 * {"version": 1,
 *  "added":   [{"camera": {definition}, "config": "<digest of the config file's camera of that id, or null>"}],
 *  "removed": [{"id": "cam1", "config": "<digest of the config file's cam1 when it was removed>"}],
 *  "paused":  ["cam2"]}
 * }</pre>
 *
 * <p>Precedence ({@link #effective}): the config file's cameras, less those removed, plus those added, the overlay's
 * definition winning over the file's for the same id; paused cameras start paused. A change holds as long as the
 * config file's camera of that id is what it was when the change was made (the digest): once the user edits that
 * camera in the file (or adds one of that id), the file is the newer word and the change is dropped, said in the log.
 * Zones and lines drawn over REST are kept per camera beside it ({@code <cacheDir>/scenes/<id>.json}, events/).
 */
public final class CameraOverlay {
    static final int VERSION = 1;

    /** A camera added (or re-defined) at run time; {@code config}: the digest of the file's camera it replaced, or null. */
    private record Added(JsonObject definition, String config) {}

    private final Map<String, Added> added = new LinkedHashMap<>();
    /** Config-file cameras removed at run time, by id: the digest of the definition that was removed. */
    private final Map<String, String> removed = new LinkedHashMap<>();
    private final Set<String> paused = new LinkedHashSet<>();

    /** The overlay's file in {@code cacheDir}. */
    public static Path file(Path cacheDir) { return cacheDir.resolve("state").resolve("cameras.json"); }

    /**
     * Reads the file; none is an empty overlay. A file that cannot be read as one fails with its path and what is wrong
     * there, and Argus does not start: running without it would silently bring back removed cameras and lose added
     * ones, and the next change would overwrite what the user may still want.
     */
    public static CameraOverlay read(Path file) {
        CameraOverlay o = new CameraOverlay();
        if (!Files.exists(file)) return o;
        JsonObject j;
        try {
            j = new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException | DecodeException e) {
            throw new ConfigException(file.toString(), "not a camera overlay (" + e.getMessage()
                    + "): fix it or move it away (the cameras changed at run time are then forgotten)");
        }
        try {
            o.load(j);
        } catch (ClassCastException | IllegalArgumentException e) {
            throw new ConfigException(file.toString(), "not a camera overlay: " + e.getMessage()
                    + " (fix it or move it away: the cameras changed at run time are then forgotten)");
        }
        return o;
    }

    /** Replaces what this overlay holds with {@code j} (as {@link #toJson} writes it); fails naming the bad field. */
    private void load(JsonObject j) {
        added.clear();
        removed.clear();
        paused.clear();
        int version = j.getInteger("version", 0);
        if (version != VERSION) throw new IllegalArgumentException("version: expected " + VERSION + ", found " + version);
        JsonArray a = j.getJsonArray("added", new JsonArray());
        for (int i = 0; i < a.size(); i++) {
            JsonObject e = a.getJsonObject(i);
            JsonObject def = e.getJsonObject("camera");
            if (def == null || def.getString("id") == null) throw new IllegalArgumentException("added[" + i + "].camera: missing, or without an id");
            added.put(def.getString("id"), new Added(def, e.getString("config")));
        }
        JsonArray r = j.getJsonArray("removed", new JsonArray());
        for (int i = 0; i < r.size(); i++) {
            JsonObject e = r.getJsonObject(i);
            if (e.getString("id") == null) throw new IllegalArgumentException("removed[" + i + "].id: missing");
            removed.put(e.getString("id"), e.getString("config"));
        }
        for (Object p : j.getJsonArray("paused", new JsonArray())) paused.add((String) p);
    }

    /**
     * Applies {@code change} and writes the file; when the write fails the overlay is as it was (so a later change does
     * not write this one after all) and the failure is thrown. On a worker thread: it waits for the disk.
     */
    public synchronized void change(java.util.function.Consumer<CameraOverlay> change, Path file) {
        JsonObject before = toJson();
        try {
            change.accept(this);
            write(file);
        } catch (RuntimeException e) {
            load(before);
            throw e;
        }
    }

    /** Replaces the file whole (on a worker thread: it waits for the disk). */
    public synchronized void write(Path file) {
        AtomicFile.writeString(file, toJson().encodePrettily());
    }

    synchronized JsonObject toJson() {
        JsonArray a = new JsonArray();
        added.values().forEach(e -> a.add(new JsonObject().put("camera", e.definition()).put("config", e.config())));
        JsonArray r = new JsonArray();
        removed.forEach((id, digest) -> r.add(new JsonObject().put("id", id).put("config", digest)));
        return new JsonObject().put("version", VERSION).put("added", a).put("removed", r)
                .put("paused", new JsonArray(new ArrayList<>(paused)));
    }

    /** The cameras to run and what the overlay did to the file's list, for the log. */
    public record Effective(List<CameraConfig> cameras, Set<String> paused, List<String> notes, boolean changed) {}

    /**
     * The config file's cameras with the overlay applied (see the class comment). Changes the file's newer word
     * supersedes are dropped from the overlay ({@code changed}: write it back); an added camera that no longer reads
     * (its model left the config, say) is not run and stays in the overlay, said in the notes.
     *
     * @param read reads an added camera's definition (CameraConfig.fromJson with the config's models)
     */
    public synchronized Effective effective(List<CameraConfig> configured, java.util.function.Function<JsonObject, CameraConfig> read) {
        Map<String, CameraConfig> inFile = new LinkedHashMap<>();
        for (CameraConfig c : configured) inFile.put(c.id(), c);
        List<String> notes = new ArrayList<>();
        boolean changed = false;
        for (var it = removed.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            CameraConfig c = inFile.get(e.getKey());
            if (c != null && !digest(c).equals(e.getValue())) {
                it.remove();
                changed = true;
                notes.add("camera " + e.getKey() + " was removed at run time, but the config file defines it anew since: it runs again");
            } else if (c == null) {
                it.remove();   // gone from the file too: nothing left to keep removed
                changed = true;
            }
        }
        for (var it = added.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            CameraConfig c = inFile.get(e.getKey());
            String now = c == null ? null : digest(c);
            if (!java.util.Objects.equals(now, e.getValue().config())) {
                it.remove();
                paused.remove(e.getKey());
                changed = true;
                notes.add("camera " + e.getKey() + " was added at run time, but the config file's camera of that id changed since: the file's runs");
            }
        }
        List<CameraConfig> out = new ArrayList<>();
        for (CameraConfig c : configured) {
            if (removed.containsKey(c.id())) {
                notes.add("camera " + c.id() + " of the config file stays removed (removed at run time; " + "edit it in the file or add it again to bring it back)");
                continue;
            }
            if (added.containsKey(c.id())) continue;   // re-defined at run time: below, in the overlay's order
            out.add(c);
        }
        for (Added a : added.values()) {
            try {
                out.add(read.apply(a.definition()));
            } catch (ConfigException | IllegalArgumentException | ClassCastException e) {
                notes.add("camera " + a.definition().getString("id") + " added at run time is not run: " + e.getMessage()
                        + " (fix the config, or delete the camera's entry from the overlay file)");
            }
        }
        Set<String> ids = new LinkedHashSet<>();
        for (CameraConfig c : out) ids.add(c.id());
        if (paused.retainAll(ids)) changed = true;
        return new Effective(List.copyOf(out), Set.copyOf(paused), List.copyOf(notes), changed);
    }

    /** A camera added at run time; {@code inFile}: the config file's camera of that id, or null. */
    public synchronized void added(CameraConfig c, CameraConfig inFile) {
        removed.remove(c.id());
        added.put(c.id(), new Added(c.definition(), inFile == null ? null : digest(inFile)));
    }

    /** A camera removed at run time; {@code inFile}: the config file's camera of that id, or null. */
    public synchronized void removed(String id, CameraConfig inFile) {
        added.remove(id);
        paused.remove(id);
        if (inFile != null) removed.put(id, digest(inFile));
    }

    public synchronized void paused(String id, boolean on) {
        if (on) paused.add(id);
        else paused.remove(id);
    }

    /** The digest of a camera's definition (credentials included, which is why the overlay keeps no more than this). */
    public static String digest(CameraConfig c) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(c.definition().encode().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
