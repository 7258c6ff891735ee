package io.argus.pipeline.camera;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The cameras Argus runs, as the REST camera routes see them: this node's own ({@link CameraSupervisor}) or, in a
 * cluster, the cluster-wide list (cluster/ClusterCamerasVerticle). Every call runs on the owning verticle's context and
 * answers on the caller's; a refusal fails the future with a {@link io.argus.pipeline.base.RequestRefused} carrying
 * its HTTP status: 400 an id that is not a name or a definition that does not hold, 404 no such camera, 409 one that
 * exists already (or, in a cluster, runs on no node now).
 */
public interface Cameras {
    /** Every camera, in the order they were added. */
    Future<List<CameraStatus>> list();

    Future<CameraStatus> get(String id);

    /** Adds a camera from its definition, as in the config file ({@code {"id", "url", "model", ...}}). */
    Future<CameraStatus> add(JsonObject definition);

    Future<Void> remove(String id);

    Future<CameraStatus> pause(String id);

    Future<CameraStatus> resume(String id);
}
