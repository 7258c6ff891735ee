package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * What camera ownership asks of this node's camera supervisor ({@link SupervisorControl} over the event bus; a fake in
 * tests). Running a camera and publishing it are apart: the supervisor runs what it is told, and only the cameras
 * whose lease is in {@link HeldLeases} are published.
 */
interface CameraControl {
    /** Starts the camera of {@code definition} here; fails with the reason it cannot run here. */
    Future<Void> add(JsonObject definition);

    /** Stops {@code camera} here. */
    Future<Void> remove(String camera);

    /** Pauses {@code camera} when an operator paused it, wherever it ran before ({@link CameraStates}); never fails. */
    Future<Void> restorePause(String camera);
}
