package io.argus.pipeline.cluster;

import io.argus.pipeline.camera.CameraUrl;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster-wide camera list: a shared map from camera id to an entry {@code {"definition": {...}, "public":
 * {...}}}. The definition is what any node needs to run the camera (its address with credentials: the map lives only
 * in the cluster members' memory); the public form is what the API shows ({@link CameraConfig#toJson}). Seeded from
 * each node's config at start, changed by REST on any node.
 */
public final class CameraCatalog {
    public static final String MAP = "argus.cameras";

    private final AsyncMap<String, String> map;

    CameraCatalog(AsyncMap<String, String> map) { this.map = map; }

    static JsonObject entry(CameraConfig c) {
        return new JsonObject().put("definition", c.definition()).put("public", c.toJson());
    }

    /**
     * Adds this node's configured cameras. A camera already listed with the same definition is fine (every node may
     * carry the same config); a different one is a configuration mismatch, and this node refuses to start rather than
     * run a camera under an id that means something else elsewhere.
     */
    Future<Void> seed(List<CameraConfig> cameras) {
        Future<Void> chain = Future.succeededFuture();
        for (int i = 0; i < cameras.size(); i++) {
            CameraConfig c = cameras.get(i);
            String key = "cameras[" + i + "]";
            chain = chain.compose(v -> map.putIfAbsent(c.id(), entry(c).encode())).compose(previous -> {
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

    /** Adds a camera; completes with false when the id is taken. */
    Future<Boolean> add(CameraConfig c) {
        return map.putIfAbsent(c.id(), entry(c).encode()).map(previous -> previous == null);
    }

    /** Removes a camera; completes with false when there was none. Its owner stops it at its next renewal. */
    Future<Boolean> remove(String id) {
        return map.remove(id).map(previous -> previous != null);
    }
}
