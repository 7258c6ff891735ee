package io.argus.pipeline.cluster;

import io.argus.pipeline.cluster.KnownCameras.Camera;
import io.vertx.core.Future;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the leases this node holds: renews each on its own every round (compare-and-set against the text it wrote
 * last), stops a camera whose lease another node took, rewrites one a stranger deleted, garbled or replayed
 * ({@link LeaseTrust}: only another node's claim, a newer sealed lease, moves a camera), and fences: a camera whose
 * renewal has not succeeded for a whole lease is stopped even when the map cannot be reached, before any other node
 * may consider its lease expired ({@link LeaseWatch}: an observer's clock starts after the last renewal was written).
 */
final class LeaseKeeping {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    private final KnownCameras table;
    private final SealedMap<String> leases;
    private final LocalCameras local;
    private final OwnershipClock clock;
    private final long leaseMs;

    LeaseKeeping(KnownCameras table, SealedMap<String> leases, LocalCameras local, OwnershipClock clock, long leaseMs) {
        this.table = table;
        this.leases = leases;
        this.local = local;
        this.clock = clock;
        this.leaseMs = leaseMs;
    }

    /** Whether {@code now} is another node's claim after {@code mine}: a later epoch, or the same one of another owner. */
    static boolean takenFrom(Lease now, Lease mine) {
        return now.epoch() > mine.epoch() || (now.epoch() == mine.epoch() && !now.owner().equals(mine.owner()));
    }

    /** The held cameras whose last successful renewal began a whole lease before {@code nowNanos}. */
    List<Camera> unrenewed(long nowNanos) {
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        List<Camera> out = new ArrayList<>();
        for (Camera c : table.holding()) {
            if (nowNanos - c.renewedAt >= leaseNanos) out.add(c);
        }
        return out;
    }

    /** Stops the cameras whose lease was not renewed for a whole lease: another node may take them now. */
    void fence(long nowNanos) {
        for (Camera c : unrenewed(nowNanos)) local.stop(c, "lease not renewed for " + leaseMs + " ms");
    }

    /**
     * Renews every held lease whose previous write has completed; an offered lease is not renewed (its text must stay
     * what the heir read, for the heir's compare-and-set). A lease someone else replaced is looked at again
     * ({@link #renewalRefused}); a renewal that fails or waits changes nothing: {@link #fence} stops the camera in time.
     */
    void renewAll(long nowNanos) {
        long expires = clock.currentTimeMillis() + leaseMs;
        for (Camera c : table.holding()) {
            if (c.phase() == CameraPhase.OFFERED || c.leaseWriteInFlight) continue;
            c.leaseWriteInFlight = true;
            String old = c.written;
            String next = Lease.parse(old).renewed(expires).text();
            leases.replaceIfPresent(c.id, old, next).onComplete(ar -> {
                c.leaseWriteInFlight = false;
                if (ar.failed() || !old.equals(c.written)) return; // failed, or stopped meanwhile
                if (ar.result()) {
                    c.written = next;
                    c.renewedAt = nowNanos;
                } else {
                    renewalRefused(c, old, next);
                }
            });
        }
    }

    /**
     * A renewal's compare-and-set failed: the stored lease is not the one this node wrote. Only another node's claim (a
     * newer sealed lease) stops the camera here; a lease deleted, garbled or put back from an older epoch is rewritten.
     */
    private void renewalRefused(Camera c, String old, String next) {
        leases.read(c.id).onSuccess(found -> {
            if (!old.equals(c.written)) return; // stopped or rewritten meanwhile
            if (found != null && found.valid() && takenFrom(Lease.parse(found.value()), Lease.parse(old))) {
                local.stop(c, "lease taken by another node");
                return;
            }
            rewrite(c, found, next, "renewing").onSuccess(ok -> {
                if (ok && old.equals(c.written)) c.written = next;
            });
        });
    }

    /**
     * Puts this node's lease {@code text} of a held camera back where {@code found} was (null: nothing was): a deleted
     * lease, garbage, or an older lease put back are no other node's claim (those are sealed with a newer epoch), so
     * the holder keeps its camera and rewrites the lease by compare-and-set against what it found. Completes with
     * whether it was written; if not (changed again meanwhile) the next round looks again, and the fence stops the
     * camera should no write succeed for a whole lease.
     */
    Future<Boolean> rewrite(Camera c, SealedMap.Stored<String> found, String text, String state) {
        if (c.leaseWriteInFlight) return Future.succeededFuture(false);
        c.leaseWriteInFlight = true;
        long began = clock.nanoTime();
        Future<Boolean> done = found == null ? leases.putIfAbsentStored(c.id, text).map(previous -> previous == null)
                : leases.replace(c.id, found, text);
        return done.andThen(ar -> {
            c.leaseWriteInFlight = false;
            if (ar.failed() || !ar.result() || !table.current(c) || !c.phase().holdsLease()) return;
            c.renewedAt = began;
            if (!c.rewriteLogged) {
                c.rewriteLogged = true;
                String what = found == null ? "deleted" : !found.valid() ? "not valid (" + found.problem() + ")" : "an older one put back";
                LOG.log(Level.WARNING, "camera {0}: its lease in the cluster was {1}; rewritten, the camera stays here ({2})", c.id, what, state);
            }
        }).otherwise(false);
    }

    /** Cameras removed from the list stop here; their leases are released (keeping the epoch, should the id return). */
    Future<Void> releaseUnlisted(Set<String> listed) {
        List<Future<?>> releases = new ArrayList<>();
        for (Camera c : table.holding()) {
            if (listed.contains(c.id)) continue;
            String mine = c.written;
            local.stop(c, "removed from the cluster's camera list");
            releases.add(leases.replaceIfPresent(c.id, mine, Lease.parse(mine).released().text()));
        }
        return Future.join(releases).mapEmpty();
    }
}
