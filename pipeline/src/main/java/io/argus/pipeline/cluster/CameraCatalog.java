package io.argus.pipeline.cluster;

import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cluster-wide camera list: a shared map from camera id to an entry {@code {"definition": {...}, "public":
 * {...}}}. The definition is what any node needs to run the camera (its address with credentials: sealed with the
 * cluster's key, {@link SealedMap}, so a member without the secret reads nothing of it); the public form is what the API shows ({@link CameraConfig#toJson}). Seeded from
 * each node's config at start, changed by REST on any node.
 */
public final class CameraCatalog {
    public static final String MAP = "argus.cameras";

    private final SealedMap<String> map;
    /**
     * The last valid entry seen of each camera, to write back over one a stranger garbled (bounded by the list: only
     * cameras listed at the last read are kept).
     */
    private Map<String, String> lastValid = Map.of();

    CameraCatalog(SealedMap<String> map) { this.map = map; }

    static JsonObject entry(CameraConfig c) {
        return new JsonObject().put("definition", c.definition()).put("public", c.toJson());
    }

    /**
     * Adds this node's configured cameras. A camera already listed with the same definition is fine (every node may
     * carry the same config); a different one is a configuration mismatch, and this node refuses to start rather than
     * run a camera under an id that means something else elsewhere. The cameras of {@code unseeded} (removed or defined
     * anew at run time, ClusterChanges) are left out.
     */
    Future<Void> seed(List<CameraConfig> cameras, Set<String> unseeded) {
        Future<Void> chain = Future.succeededFuture();
        for (int i = 0; i < cameras.size(); i++) {
            CameraConfig c = cameras.get(i);
            if (unseeded.contains(c.id())) continue;
            String key = "cameras[" + i + "]";
            String mine = entry(c).encode();
            chain = chain.compose(v -> putOverInvalid(c.id(), mine)).compose(previous -> {
                if (previous == null) return Future.succeededFuture();
                JsonObject theirs = new JsonObject(previous).getJsonObject("definition");
                if (theirs.equals(c.definition())) return Future.succeededFuture();
                return Future.failedFuture(new ConfigException(key, "camera \"" + c.id()
                        + "\" is already in the cluster with another definition: the cluster has "
                        + shown(theirs) + ", this node's config " + shown(c.definition())
                        + " (give one of them another id, or make the configs agree)"));
            });
        }
        return chain;
    }

    /** A definition as an error may show it: the address without credentials. */
    private static String shown(JsonObject definition) {
        JsonObject j = definition.copy();
        j.put("url", CameraUrl.redact(j.getString("url")));
        return j.encode();
    }

    /**
     * Puts {@code entry} unless a valid one is there: an invalid value counts as none (it was logged and counted when
     * read). Completes with the valid entry found, or null when {@code entry} was put.
     */
    private Future<String> putOverInvalid(String id, String entry) { return putOverInvalid(id, entry, 3); }

    private Future<String> putOverInvalid(String id, String entry, int attempts) {
        return map.putIfAbsentStored(id, entry).compose(found -> {
            if (found == null) return Future.succeededFuture();
            if (found.valid()) return Future.succeededFuture(found.value());
            return map.replace(id, found, entry).compose(ok -> {
                if (ok) return Future.succeededFuture();
                if (attempts > 1) return putOverInvalid(id, entry, attempts - 1); // changed meanwhile: look again
                return Future.failedFuture(new IllegalStateException("camera \"" + id
                        + "\": its entry in the cluster keeps changing to invalid values; not written"));
            });
        });
    }

    /**
     * The list as stored: the valid entries, and the cameras listed: those, and those whose entry is invalid now but
     * was valid before (a garbled entry removes no camera: its owner keeps running it, and the entry is written back
     * from the last valid one seen, {@link #heal}); an invalid entry never valid names no camera.
     */
    record Listing(Map<String, JsonObject> valid, Set<String> present, Map<String, SealedMap.Stored<String>> invalid) {}

    Future<Listing> read() {
        return map.readAll().map(all -> {
            Map<String, JsonObject> valid = new TreeMap<>();
            Map<String, SealedMap.Stored<String>> invalid = new TreeMap<>();
            all.forEach((k, v) -> {
                if (v.valid()) valid.put(k, new JsonObject(v.value()));
                else invalid.put(k, v);
            });
            Map<String, String> seen = new HashMap<>();
            for (String k : all.keySet()) {
                SealedMap.Stored<String> v = all.get(k);
                if (v.valid()) seen.put(k, v.value());
                else if (lastValid.containsKey(k)) seen.put(k, lastValid.get(k));
            }
            lastValid = seen;
            return new Listing(valid, Set.copyOf(seen.keySet()), invalid);
        });
    }

    /**
     * Writes back, over each invalid entry of {@code listing}, the last valid entry seen of that camera (by
     * compare-and-set: of several nodes doing so, one writes).
     */
    Future<Void> heal(Listing listing) {
        List<Future<Boolean>> writes = new ArrayList<>();
        listing.invalid().forEach((id, found) -> {
            String last = lastValid.get(id);
            if (last != null) writes.add(map.replace(id, found, last));
        });
        return Future.join(new ArrayList<Future<?>>(writes)).mapEmpty();
    }

    /** Every camera: id to entry. */
    Future<Map<String, JsonObject>> entries() {
        return map.entries().map(m -> {
            Map<String, JsonObject> out = new java.util.TreeMap<>();
            m.forEach((k, v) -> out.put(k, new JsonObject(v)));
            return out;
        });
    }

    Future<JsonObject> get(String id) {
        return map.get(id).map(v -> v == null ? null : new JsonObject(v));
    }

    /** Adds a camera; completes with false when the id is taken (by a valid entry). */
    Future<Boolean> add(CameraConfig c) {
        return putOverInvalid(c.id(), entry(c).encode()).map(previous -> previous == null);
    }

    /** Lists {@code c} under its id, whatever was listed there (a camera's record brought back at start, ClusterChanges). */
    Future<Void> define(CameraConfig c) {
        return map.put(c.id(), entry(c).encode());
    }

    /** Removes a camera; completes with false when there was none. Its owner stops it at its next renewal. */
    Future<Boolean> remove(String id) {
        return map.remove(id).map(previous -> previous != null);
    }
}
