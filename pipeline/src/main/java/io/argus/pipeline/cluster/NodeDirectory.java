package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * What each node tells the others about itself, in a shared map from node id to {@code {"id", "cluster": host:port,
 * "http": host:port, "weight"}}: its weight for the camera shares, its addresses for {@code GET /api/nodes}. Only
 * entries of current members count; a node removes its own entry when it stops, and any node removes those of nodes
 * that left. Sealed ({@link SealedMap}): an entry is a node's word that it holds the cluster secret, and its
 * {@code http} address is never one a stranger declared.
 */
final class NodeDirectory {
    static final String MAP = "argus.nodes";

    private final AsyncMap<String, String> map;

    NodeDirectory(AsyncMap<String, String> map) { this.map = map; }

    Future<Void> put(JsonObject self) { return map.put(self.getString("id"), self.encode()); }

    Future<Void> remove(String node) { return map.remove(node).mapEmpty(); }

    Future<Map<String, JsonObject>> entries() {
        return map.entries().map(m -> {
            Map<String, JsonObject> out = new HashMap<>();
            m.forEach((k, v) -> out.put(k, new JsonObject(v)));
            return out;
        });
    }

    /**
     * The weights of {@code members}; 0 for a member without a (valid) entry: one that has not written it yet, whose
     * cameras would wait until it can claim, or a Hazelcast member without the cluster secret, which cannot write one
     * (the entries are sealed) and would never run a camera.
     */
    static Map<String, Double> weights(Collection<String> members, Map<String, JsonObject> entries) {
        Map<String, Double> w = new HashMap<>();
        for (String m : members) {
            JsonObject e = entries.get(m);
            w.put(m, e != null ? e.getDouble("weight", 1.0) : 0.0);
        }
        return w;
    }

    /** Forgets entries of nodes that are no longer members (the node died without removing its own). */
    Future<Void> prune(Collection<String> members, Map<String, JsonObject> entries) {
        Future<Void> chain = Future.succeededFuture();
        for (Map.Entry<String, JsonObject> e : entries.entrySet()) {
            if (!members.contains(e.getKey())) chain = chain.compose(v -> remove(e.getKey()));
        }
        return chain;
    }
}
