package io.argus.pipeline.cluster;

import io.argus.pipeline.cluster.KnownCameras.Camera;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;

/**
 * Starts and stops cameras here through the supervisor ({@link CameraControl}) as their phases require, and moves each
 * camera on when the supervisor answers. Publishing follows the lease, not the supervisor: a lease leaves
 * {@link HeldLeases} before its camera's stop is asked, so nothing of it is published meanwhile.
 */
final class LocalCameras {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    /** How long a camera that failed to start here (a file missing on this node, an unknown model) is left alone. */
    static final long RETRY_UNRUNNABLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final KnownCameras table;
    private final CameraControl control;
    private final SealedMap<String> leases;
    private final OwnershipClock clock;

    LocalCameras(KnownCameras table, CameraControl control, SealedMap<String> leases, OwnershipClock clock) {
        this.table = table;
        this.control = control;
        this.leases = leases;
        this.clock = clock;
    }

    /**
     * Starts a camera whose lease this node has just claimed ({@link CameraPhase#STARTING}). One that cannot run here
     * gives its lease back (released, for any node) and is not tried here again for a while; one whose lease was lost
     * meanwhile is stopped as soon as it runs.
     */
    void start(Camera c, JsonObject definition, Lease lease) {
        long began = clock.nanoTime();
        control.add(definition).onComplete(ar -> {
            if (ar.succeeded()) {
                // the time from the claim, so that a camera's silence can be told apart from a slow claim
                LOG.log(Level.INFO, "camera {0}: running on this node (epoch {1}, started in {2} ms)", c.id,
                        Long.toString(lease.epoch()), TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - began));
                if (c.phase() == CameraPhase.STOP_AFTER_START) {
                    removeNow(c); // the lease was lost while it started
                } else {
                    table.move(c, CameraPhase.HELD);
                    control.restorePause(c.id);
                }
                return;
            }
            LOG.log(Level.WARNING, "camera {0}: cannot run on this node: {1}", c.id, ar.cause().getMessage());
            String mine = c.written; // none when the lease was lost meanwhile
            table.failedToStart(c, clock.nanoTime() + RETRY_UNRUNNABLE_NANOS);
            if (mine != null) leases.replaceIfPresent(c.id, mine, Lease.parse(mine).released().text());
        });
    }

    /**
     * Starts a camera offered to this node ({@link CameraPhase#PREPARING}) without publishing it, and its paused state
     * with it; completes once it runs here on standby, fails (the camera free again) when it cannot run here.
     */
    Future<Void> startOnStandby(Camera c, JsonObject definition, Lease offer) {
        return control.add(definition).transform(ar -> {
            if (ar.failed()) {
                table.move(c, CameraPhase.FREE);
                return Future.failedFuture(ar.cause());
            }
            table.move(c, CameraPhase.STANDBY);
            LOG.log(Level.INFO, "camera {0}: running on standby for a hand-over (epoch {1} ends)", c.id, Long.toString(offer.epoch()));
            return control.restorePause(c.id);
        });
    }

    /**
     * Stops publishing {@code c} at once (its lease leaves {@link HeldLeases}), then the camera. One still starting is
     * stopped when its start completes ({@link #start}).
     */
    void stop(Camera c, String reason) {
        if (c.phase() == CameraPhase.STARTING) {
            table.move(c, CameraPhase.STOP_AFTER_START);
            return;
        }
        boolean wasHeld = c.phase().holdsLease();
        table.move(c, CameraPhase.STOPPING);
        if (wasHeld) LOG.log(Level.INFO, "camera {0}: stopped on this node ({1})", c.id, reason);
        control.remove(c.id).onComplete(ar -> table.move(c, CameraPhase.FREE));
    }

    private void removeNow(Camera c) {
        table.move(c, CameraPhase.STOPPING);
        control.remove(c.id).onComplete(ar -> table.move(c, CameraPhase.FREE));
    }
}
