package io.argus.pipeline.publish;

import io.vertx.core.json.JsonObject;

/**
 * Who may publish a camera's detections, and how the messages say so. On a single node every camera is this node's
 * and messages are left as they are; in a cluster only the holder of a camera's lease publishes, stamping
 * {@code node} and {@code epoch} so consumers can drop a former owner's late messages
 * ({@link io.argus.pipeline.cluster.HeldLeases}, {@link io.argus.pipeline.publish.EpochFilter}).
 */
public interface Provenance {
    /** Stamps {@code message}; false when this node must not publish for {@code camera} (it no longer holds it). */
    boolean stamp(String camera, JsonObject message);

    /** A single node: publish everything, unchanged. */
    Provenance STANDALONE = (camera, message) -> true;
}
