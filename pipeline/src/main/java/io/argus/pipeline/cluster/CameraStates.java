package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

/**
 * What an operator changed on a running camera, kept cluster-wide so it moves with the camera: a shared map from camera
 * id to {@code {"paused": true}}. Written when a pause or resume succeeded on the owner; read by the node that starts
 * the camera (a failover, a hand-over, a rebalance), which pauses it again. Removed with the camera.
 */
final class CameraStates {
    static final String MAP = "argus.camera-states";

    private final AsyncMap<String, String> map;

    CameraStates(AsyncMap<String, String> map) { this.map = map; }

    Future<Void> setPaused(String camera, boolean paused) {
        return paused ? map.put(camera, new JsonObject().put("paused", true).encode()) : map.remove(camera).mapEmpty();
    }

    Future<Boolean> paused(String camera) {
        return map.get(camera).map(v -> v != null && new JsonObject(v).getBoolean("paused", false));
    }

    Future<Void> remove(String camera) { return map.remove(camera).mapEmpty(); }
}
