package io.argus.pipeline.inference;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * Control of one model's inference ({@link InferenceVerticle}): its status and a hot swap of its weights. Calls run on
 * the model's verticle and answer on the caller's context; a refusal fails the future with a
 * {@link io.argus.pipeline.base.RequestRefused}: 400 for a request without weights, 409 when the weights cannot be
 * loaded or the model stops.
 */
public interface ModelControl {
    /** The model's id (its {@code models[].id}). */
    String id();

    /**
     * The model as {@code GET /api/models} shows it: the version serving, its backend and devices, the batcher's
     * depth and the inference counters.
     */
    Future<JsonObject> status();

    /**
     * Loads {@code weights} beside the serving version, then has the inference thread switch to it between two
     * batches; completes once it serves. {@code version}: the name the weights are known by (null: named after
     * their content).
     */
    Future<Swapped> swap(Path weights, String version);

    /** A swap that happened: {@code version} of {@code model} serves now, in place of {@code replaced}. */
    record Swapped(String model, String version, String replaced) {}
}
