package io.argus.pipeline.publish;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * The consumer side of camera epochs: drops a detection message whose epoch is older than the newest seen for its
 * camera, so after a failover the former owner's late messages (a node that has not yet noticed it lost the lease)
 * never interleave with the new owner's. Messages without an epoch (a single node) pass.
 *
 * <p>An older epoch is accepted again once the newest has been silent for {@code forgetMs}: the epoch counter
 * restarts only when the lease map itself was lost (more nodes died at once than it has backups), and then the new
 * owner's low epoch must not be dropped forever. One filter per consumer, used on one event loop.
 */
public final class EpochFilter {
    private record Newest(long epoch, String node, long seenNanos) {}

    private final long forgetNanos;
    private final Map<String, Newest> newest = new HashMap<>();
    private long dropped;

    public EpochFilter(long forgetMs) { this.forgetNanos = forgetMs * 1_000_000L; }

    /** True when {@code message} should be delivered. */
    public boolean accept(JsonObject message) {
        Object e = message.getValue("epoch");
        String camera = message.getString("cameraId");
        if (!(e instanceof Number epochNumber) || camera == null) return true;
        long epoch = epochNumber.longValue();
        long now = System.nanoTime();
        Newest n = newest.get(camera);
        if (n == null || epoch > n.epoch() || (epoch < n.epoch() && now - n.seenNanos() > forgetNanos)) {
            newest.put(camera, new Newest(epoch, message.getString("node"), now));
            return true;
        }
        if (epoch == n.epoch()) {
            newest.put(camera, new Newest(epoch, n.node(), now));
            return true;
        }
        dropped++;
        return false;
    }

    /** Messages dropped so far. */
    public long dropped() { return dropped; }

    public void forget(String camera) { newest.remove(camera); }
}
