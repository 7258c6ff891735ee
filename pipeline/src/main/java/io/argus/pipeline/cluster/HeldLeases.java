package io.argus.pipeline.cluster;

import io.argus.pipeline.publish.Provenance;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The camera leases this node holds now, as the inference threads see them: {@link CameraOwnership} adds a lease
 * before it starts a camera and removes it before it stops one, so a frame still in flight when the lease is lost is
 * not published. Thread-safe (written on the ownership verticle's event loop, read on inference threads).
 */
public final class HeldLeases implements Provenance {
    private final String node;
    private final Map<String, Lease> held = new ConcurrentHashMap<>();

    public HeldLeases(String node) { this.node = node; }

    public String node() { return node; }

    @Override
    public boolean stamp(String camera, JsonObject message) {
        Lease l = held.get(camera);
        if (l == null) return false;
        message.put("node", node).put("epoch", l.epoch());
        return true;
    }

    void put(String camera, Lease lease) { held.put(camera, lease); }

    Lease get(String camera) { return held.get(camera); }

    void remove(String camera) { held.remove(camera); }

    Set<String> cameras() { return Set.copyOf(held.keySet()); }

    void clear() { held.clear(); }

    public int size() { return held.size(); }
}
