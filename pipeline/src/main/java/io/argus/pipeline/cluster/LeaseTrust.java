package io.argus.pipeline.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which stored leases a node believes. Sealing ({@link SealedMap}) keeps anyone without the cluster secret from
 * writing a lease a node accepts, but not from deleting one, writing garbage over it, or putting back an older sealed
 * lease of the same camera (a replay). This remembers the newest lease seen for each camera (the epoch only grows),
 * and judges what a survey reads:
 * <ul>
 * <li><b>believed</b>: opens, validates, and its epoch is not below the newest seen;</li>
 * <li><b>suspect</b>: missing where a live node held it, invalid, or replayed (an older epoch). Its holder rewrites it
 *     at its next renewal ({@link CameraOwnership}); the others claim it only once it stayed the same for a whole
 *     lease (the holder would have rewritten it), or at once when they know its last owner is gone or released it.
 *     So a stranger's write never moves or stops a camera.</li>
 * </ul>
 * Event loop of the ownership verticle only.
 */
final class LeaseTrust {
    private final Map<String, Lease> newest = new HashMap<>();

    /** Notes a believed lease (the newest one seen, should its epoch be higher). */
    void saw(String camera, Lease lease) {
        Lease before = newest.get(camera);
        if (before == null || lease.epoch() >= before.epoch()) newest.put(camera, lease);
    }

    /** True when {@code lease} is older than the newest seen for {@code camera}: put back by someone, not a node. */
    boolean replayed(String camera, Lease lease) {
        Lease before = newest.get(camera);
        return before != null && lease.epoch() < before.epoch();
    }

    /** The newest lease seen for {@code camera}; null when none. */
    Lease newest(String camera) { return newest.get(camera); }

    /** The epoch of a claim of {@code camera} whose stored lease cannot be believed: past every epoch seen. */
    long nextEpoch(String camera) {
        Lease before = newest.get(camera);
        return before == null ? 1 : before.epoch() + 1;
    }

    /**
     * Whether a suspect lease of {@code camera} may be claimed at once: its newest believed lease was released (and not
     * left to another live heir) or its owner is no longer a member. A camera of unknown history, or one whose owner
     * lives, waits a whole lease: its holder may still rewrite it.
     */
    boolean claimableAtOnce(String camera, List<String> live, String me) {
        Lease last = newest.get(camera);
        if (last == null) return false;
        if (last.free()) return last.heir().isEmpty() || last.heir().equals(me) || !live.contains(last.heir());
        return !live.contains(last.owner());
    }

    /** Forgets cameras no longer listed. */
    void retain(Set<String> cameras) { newest.keySet().retainAll(cameras); }
}
