package io.argus.pipeline.cluster;

import java.util.HashMap;
import java.util.HashSet;
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
 *     at its next renewal ({@link LeaseKeeping}); the others claim it only once it stayed the same for a whole
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

    /**
     * A survey's leases as this node judges them: the believed ones (camera to text), the suspect ones (as stored), and
     * the cameras of which this node had seen no lease before this survey.
     */
    record Judged(Map<String, String> believed, Map<String, SealedMap.Stored<String>> suspect, Set<String> unknownBefore) {}

    /**
     * Sorts the stored leases into those believed and the suspect ones (invalid, or an older epoch than this node saw:
     * put back by someone, counted in {@code invalid}); notes the believed ones.
     */
    Judged judge(Map<String, SealedMap.Stored<String>> stored, InvalidValues invalid) {
        Map<String, String> believed = new HashMap<>();
        Map<String, SealedMap.Stored<String>> suspect = new HashMap<>();
        Set<String> unknownBefore = new HashSet<>();
        for (Map.Entry<String, SealedMap.Stored<String>> e : stored.entrySet()) {
            String camera = e.getKey();
            SealedMap.Stored<String> s = e.getValue();
            if (newest(camera) == null) unknownBefore.add(camera);
            if (!s.valid()) {
                suspect.put(camera, s);
                continue;
            }
            Lease l = Lease.parse(s.value());
            if (replayed(camera, l)) {
                invalid.value(Lease.MAP, camera, "an older lease (epoch " + l.epoch() + ", this node saw epoch "
                        + newest(camera).epoch() + "): put back by someone, not written by a node", s.sealed());
                suspect.put(camera, s);
                continue;
            }
            saw(camera, l);
            believed.put(camera, s.value());
        }
        return new Judged(believed, suspect, unknownBefore);
    }

    /** Forgets cameras no longer listed. */
    void retain(Set<String> cameras) { newest.keySet().retainAll(cameras); }
}
