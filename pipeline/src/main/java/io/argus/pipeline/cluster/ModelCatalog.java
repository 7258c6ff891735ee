package io.argus.pipeline.cluster;

import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.inference.LoadedModel;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A model id means the same model on every node: a shared map from model id to what its config loads
 * ({@code {"cfg", "weights", "names", "input", "node"}}: content hashes of the cfg and names files, the configured
 * weights' version, the input size, and the node that registered it first). Each node registers its models at start;
 * a node whose config gives an id other content (another weights file, a changed cfg) refuses to serve that model:
 * it claims none of its cameras, and says why in its log and in {@code GET /api/nodes} ({@code refusedModels}).
 * Detections of one model id then always come from the same network, whichever node runs the camera.
 */
public final class ModelCatalog {
    public static final String MAP = "argus.models";

    private final SealedMap<String> map;

    ModelCatalog(SealedMap<String> map) { this.map = map; }

    /** What decides a model's detections, as this node's config loads it. */
    static JsonObject content(ModelConfig m) {
        return new JsonObject()
                .put("cfg", LoadedModel.fileVersion(m.cfg()))
                .put("weights", m.weights() != null ? LoadedModel.fileVersion(m.weights()) : "random-seed-" + m.seed())
                .put("names", m.names() != null ? LoadedModel.fileVersion(m.names()) : "")
                .put("input", m.width() + "x" + m.height());
    }

    /**
     * Registers this node's models; completes with the refused ones: model id to the reason (both contents named).
     */
    Future<Map<String, String>> register(List<ModelConfig> models, String node) {
        Map<String, String> refused = new TreeMap<>();
        Future<Void> chain = Future.succeededFuture();
        for (ModelConfig m : models) {
            JsonObject mine = content(m);
            String entry = mine.copy().put("node", node).encode();
            chain = chain.compose(v -> map.putIfAbsentStored(m.id(), entry)).compose(found -> {
                // an invalid entry (logged and counted where it was read) is no registration: this node's replaces it
                if (found != null && !found.valid()) return map.replace(m.id(), found, entry).map(ok -> (String) null);
                return Future.succeededFuture(found == null ? null : found.value());
            }).compose(previous -> {
                if (previous == null) return Future.succeededFuture();
                JsonObject theirs = new JsonObject(previous);
                String first = (String) theirs.remove("node");
                if (!theirs.equals(mine)) {
                    refused.put(m.id(), "model \"" + m.id() + "\" is in the cluster with other content (registered by node "
                            + first + ": " + theirs.encode() + "; this node's config: " + mine.encode()
                            + "): this node serves none of its cameras (give one of them another id, or make the files agree)");
                }
                return Future.succeededFuture();
            });
        }
        return chain.map(v -> refused);
    }
}
