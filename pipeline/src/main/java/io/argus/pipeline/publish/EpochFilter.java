package io.argus.pipeline.publish;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * The consumer side of camera epochs: drops a detection message whose epoch is older than the newest seen for its
 * camera, so after a failover the former owner's late messages (a node that has not yet noticed it lost the lease)
 * never interleave with the new owner's. Messages without an epoch (a single node) pass.
 *
 * <p>A newer epoch's message captured no later than the last one delivered of the camera is dropped too: the frames of
 * two owners never interleave in capture time at a client. Such messages are a backlog, not news: during a partition
 * the clustered event bus holds the messages it cannot send to a node until its connection comes back (up to its
 * connect timeout), so after the heal a client there got the new owner's frames from during the cut, captured while
 * the old owner, unaware yet, still streamed to it (3.8-4.7 s of overlap; ClusterPartitionTest failed so in 3 of 20
 * runs beside a parallel build). Capture times come from the owners' clocks; a new owner whose clock is behind loses its
 * first frames for at most {@code forgetMs}, after which its frames are taken whatever their time (so clocks that
 * disagree by more than a frame interval cost frames at a hand-over, never a camera).
 *
 * <p>An older epoch is accepted again once the newest has been silent for {@code forgetMs}: the epoch counter
 * restarts only when the lease map itself was lost (more nodes died at once than it has backups), and then the new
 * owner's low epoch must not be dropped forever. One filter per consumer, used on one event loop.
 */
public final class EpochFilter {
    /**
     * The newest epoch of a camera: its node, when it was last seen, its latest capture time (NaN: unknown), and when a
     * newer epoch's backlog began to be dropped (0: none).
     */
    private record Newest(long epoch, String node, long seenNanos, double lastCapture, long backlogSince) {}

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
        double capture = message.getValue("captureTime") instanceof Number c ? c.doubleValue() : Double.NaN;
        long now = System.nanoTime();
        Newest n = newest.get(camera);
        if (n != null && epoch > n.epoch() && capture <= n.lastCapture()) {   // false when either is NaN
            long since = n.backlogSince() != 0 ? n.backlogSince() : now;
            if (now - since <= forgetNanos) {
                if (n.backlogSince() == 0) newest.put(camera, new Newest(n.epoch(), n.node(), n.seenNanos(), n.lastCapture(), since));
                dropped++;
                return false;
            }
        }
        if (n == null || epoch > n.epoch() || (epoch < n.epoch() && now - n.seenNanos() > forgetNanos)) {
            newest.put(camera, new Newest(epoch, message.getString("node"), now, capture, 0));
            return true;
        }
        if (epoch == n.epoch()) {
            double last = Double.isNaN(n.lastCapture()) ? capture : Double.isNaN(capture) ? n.lastCapture()
                    : Math.max(n.lastCapture(), capture);
            newest.put(camera, new Newest(epoch, n.node(), now, last, n.backlogSince()));
            return true;
        }
        dropped++;
        return false;
    }

    /** Messages dropped so far. */
    public long dropped() { return dropped; }

    public void forget(String camera) { newest.remove(camera); }
}
