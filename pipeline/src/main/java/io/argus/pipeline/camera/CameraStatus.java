package io.argus.pipeline.camera;

import io.vertx.core.json.JsonObject;

/**
 * A camera as {@code GET /api/cameras/:id} shows it, with what other services look up typed: its {@code id} and the
 * {@code model} it feeds. {@code json} is the whole description: the definition (credentials redacted, zones and lines)
 * and the live counters, and in a cluster its owner node and epoch; it is merged across nodes and sent between them,
 * so it stays the JSON the API documents (docs/pipeline.md, docs/cluster.md) rather than a record of its own.
 */
public record CameraStatus(String id, String model, JsonObject json) {

    /** A description with at least its {@code id}. */
    public static CameraStatus of(JsonObject json) {
        return new CameraStatus(json.getString("id"), json.getString("model"), json);
    }
}
