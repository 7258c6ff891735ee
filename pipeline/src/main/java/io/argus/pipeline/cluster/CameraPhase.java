package io.argus.pipeline.cluster;

import java.util.EnumSet;
import java.util.Set;

/**
 * What one camera is to this node, as this node sees it: whether it holds the camera's lease (and so publishes its
 * detections), whether the camera runs here, and what is in flight. {@link KnownCameras} keeps one phase per camera
 * and is the only place that changes it, along the transitions of {@link #next()}; any other change is a bug.
 *
 * <p>A cold claim goes FREE, CLAIMING, STARTING, HELD; a warm hand-over goes, on the owner, HELD, OFFERED, STOPPING,
 * FREE and, on the heir, FREE, PREPARING, STANDBY, TAKING_OVER, HELD. The entry of a camera disappears when it is
 * FREE again.
 *
 * <p>A lease write in flight (a renewal, an offer, a rewrite, a withdrawal) is no phase of its own: it happens while a
 * camera is starting as well as while it runs, so it is a mark on the camera ({@link KnownCameras.Camera}).
 */
enum CameraPhase {
    /** Nothing is known of it here: it has no entry (it may run on another node, or nowhere). */
    FREE,
    /** This node's claim of the lease (a compare-and-set) is in flight; nothing runs here. */
    CLAIMING,
    /** The lease is this node's, so its detections are published, and the camera is being started here. */
    STARTING,
    /** The lease is this node's and the camera runs here. */
    HELD,
    /**
     * Held and running, and offered to an heir (a warm hand-over): published here until the heir is ready, and not
     * renewed meanwhile (the heir answers by compare-and-set against the offer's text).
     */
    OFFERED,
    /** Another node offered the camera to this one: being started here, not published. */
    PREPARING,
    /** Runs here, not published, for a hand-over offered to this node: waits for its owner to release it here. */
    STANDBY,
    /** On standby, and this node claims the lease released to it: once won, published from the running camera. */
    TAKING_OVER,
    /** Its lease is gone here (lost, handed over, withdrawn, removed from the list) and the camera is being stopped. */
    STOPPING,
    /** The lease was lost while the camera was still starting: it is stopped as soon as its start completes. */
    STOP_AFTER_START,
    /** Cannot run here (its model is not served here, its source is not valid here): not tried again for a while. */
    UNRUNNABLE;

    /** The phases this one may become. */
    Set<CameraPhase> next() {
        return switch (this) {
            // claimed; offered to this node (a hand-over); found not to fit this node
            case FREE -> EnumSet.of(CLAIMING, PREPARING, UNRUNNABLE);
            // won; lost to another node (or won after a split, and given back)
            case CLAIMING -> EnumSet.of(STARTING, FREE);
            // runs; lease lost meanwhile (fenced, taken, fewer than minSize members, this node stops); failed to start
            case STARTING -> EnumSet.of(HELD, STOP_AFTER_START, UNRUNNABLE);
            // offered to an heir; lease lost or camera removed; released as this node stops (the app stops the camera)
            case HELD -> EnumSet.of(OFFERED, STOPPING, FREE);
            // withdrawn; handed over or lease lost; released to its heir as this node stops
            case OFFERED -> EnumSet.of(HELD, STOPPING, FREE);
            // runs on standby; cannot run here
            case PREPARING -> EnumSet.of(STANDBY, FREE);
            // released to this node, claimed; the offer went away
            case STANDBY -> EnumSet.of(TAKING_OVER, STOPPING);
            // won; lost (or won after a split, and given back)
            case TAKING_OVER -> EnumSet.of(HELD, STANDBY);
            // stopped
            case STOPPING -> EnumSet.of(FREE);
            // started, now stopped; failed to start
            case STOP_AFTER_START -> EnumSet.of(STOPPING, UNRUNNABLE);
            // its time is up: tried again
            case UNRUNNABLE -> EnumSet.of(FREE);
        };
    }

    /** The lease is this node's: the camera's detections are published here ({@link HeldLeases}). */
    boolean holdsLease() { return this == STARTING || this == HELD || this == OFFERED; }

    /** A start or a stop of the camera is in flight at the supervisor: not claimed, offered or taken meanwhile. */
    boolean busy() { return this == STARTING || this == PREPARING || this == STOPPING || this == STOP_AFTER_START; }
}
