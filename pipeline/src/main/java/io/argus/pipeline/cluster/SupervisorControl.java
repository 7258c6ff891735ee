package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;

/** {@link CameraControl} over this node's camera supervisor: requests on {@link Addresses#CAMERA_CONTROL}. */
final class SupervisorControl implements CameraControl {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    private final Vertx vertx;
    private final CameraStates states;

    SupervisorControl(Vertx vertx, CameraStates states) {
        this.vertx = vertx;
        this.states = states;
    }

    @Override
    public Future<Void> add(JsonObject definition) {
        return vertx.eventBus().request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "add").put("camera", definition)).mapEmpty();
    }

    @Override
    public Future<Void> remove(String camera) {
        return vertx.eventBus().request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "remove").put("id", camera)).mapEmpty();
    }

    /** A camera an operator paused stays paused wherever it runs ({@link CameraStates}). */
    @Override
    public Future<Void> restorePause(String camera) {
        return states.paused(camera).compose(paused -> {
            if (!paused) return Future.<Void>succeededFuture();
            LOG.log(Level.INFO, "camera {0}: paused, as it was on its previous node", camera);
            return vertx.eventBus().request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "pause").put("id", camera)).<Void>mapEmpty();
        }).recover(e -> {
            LOG.log(Level.WARNING, "camera {0}: its paused state could not be restored: {1}", camera, e.getMessage());
            return Future.succeededFuture();
        });
    }
}
