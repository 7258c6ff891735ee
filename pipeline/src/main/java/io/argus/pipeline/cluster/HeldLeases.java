package io.argus.pipeline.cluster;

import io.argus.pipeline.publish.Provenance;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The camera leases this node holds now, as the inference threads see them: {@link CameraOwnership} adds a lease
 * before it starts a camera and removes it before it stops one, so a frame still in flight when the lease is lost is
 * not published. Only frames captured after the lease was taken here are published: a camera taken over warm (it ran
 * here on standby during a hand-over) may still have frames in flight that were captured while the previous owner
 * published, and those would interleave the two owners in capture time. Thread-safe (written on the ownership
 * verticle's event loop, read on inference threads).
 */
public final class HeldLeases implements Provenance {
    private final String node;
    private record Held(Lease lease, double sinceMs) {}

    private final Map<String, Held> held = new ConcurrentHashMap<>();

    public HeldLeases(String node) { this.node = node; }

    public String node() { return node; }

    @Override
    public boolean stamp(String camera, JsonObject message) {
        Held h = held.get(camera);
        if (h == null) return false;
        Double captured = message.getDouble("captureTime");
        if (captured != null && captured < h.sinceMs()) return false; // captured before this node held the camera
        message.put("node", node).put("epoch", h.lease().epoch());
        return true;
    }

    /** Holds {@code camera} from now on (wall clock: the same clock as the frames' capture times). */
    void put(String camera, Lease lease) { held.put(camera, new Held(lease, System.currentTimeMillis())); }

    Lease get(String camera) {
        Held h = held.get(camera);
        return h == null ? null : h.lease();
    }

    void remove(String camera) { held.remove(camera); }

    Set<String> cameras() { return Set.copyOf(held.keySet()); }

    void clear() { held.clear(); }

    public int size() { return held.size(); }
}
