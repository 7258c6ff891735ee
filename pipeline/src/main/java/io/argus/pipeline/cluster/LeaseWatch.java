package io.argus.pipeline.cluster;

import java.util.HashMap;
import java.util.Map;

/**
 * Decides that a lease has expired by watching it, not by reading its expiry: an owner that renews rewrites its lease
 * every renewal, so a lease whose stored text has not changed for {@code leaseMs} of this node's own clock was not
 * renewed. Nodes' clocks never need to agree. A node that has just started has seen nothing change yet, so it waits
 * a whole lease before taking any (it cannot tell a live owner from a dead one sooner; membership can: see
 * {@link CameraOwnership}).
 */
final class LeaseWatch {
    private record Seen(String text, long sinceNanos) {}

    private final long leaseNanos;
    private final Map<String, Seen> seen = new HashMap<>();

    LeaseWatch(long leaseMs) { this.leaseNanos = leaseMs * 1_000_000L; }

    /** Notes {@code camera}'s current lease text; true when it has stayed the same for a whole lease. */
    boolean expired(String camera, String text, long nowNanos) {
        Seen s = seen.get(camera);
        if (s == null || !s.text().equals(text)) {
            seen.put(camera, new Seen(text, nowNanos));
            return false;
        }
        return nowNanos - s.sinceNanos() >= leaseNanos;
    }

    /** Forgets cameras no longer in the lease map. */
    void retain(java.util.Set<String> cameras) { seen.keySet().retainAll(cameras); }
}
