package io.argus.pipeline.cluster;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cameras this node knows something of, each in one {@link CameraPhase}: the one place where a camera's phase
 * changes, each change checked against the phase's allowed transitions (another is a bug: logged as an error and
 * thrown, so the caller goes no further). Keeps {@link HeldLeases}, which the inference threads read, in step: a
 * camera's lease is there exactly while its phase holds the lease. A camera that goes back to {@link CameraPhase#FREE}
 * loses its entry, so the table holds no more than the cameras this node claims, runs, stops or cannot run.
 * Event loop of the ownership verticle only.
 */
final class KnownCameras {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    /**
     * One camera as this node knows it: its phase and what that phase needs. The lease fields are kept by whoever
     * writes the lease ({@link LeaseKeeping}, {@link HandOver}); the phase and what comes with it change here only.
     */
    static final class Camera {
        final String id;
        private CameraPhase phase;
        /** The lease text this node wrote last, while it holds the lease: the expected value of its next compare-and-set. */
        String written;
        /** When the last successful renewal (or the claim) of the lease began (monotonic clock, nanoseconds). */
        long renewedAt;
        /** A compare-and-set of the lease is in flight (renewal, offer, rewrite, withdrawal): no other is started. */
        boolean leaseWriteInFlight;
        /** This node rewrote its lease after a stranger's write, and said so (once per holding). */
        boolean rewriteLogged;
        /** This node is leaving: the member planned to take the camera over. */
        String plannedHeir;
        private String offeredTo;
        private long offeredAt;
        private long unrunnableUntil;

        private Camera(String id, CameraPhase phase) {
            this.id = id;
            this.phase = phase;
        }

        CameraPhase phase() { return phase; }

        /** {@link CameraPhase#OFFERED}: the heir it is offered to. */
        String offeredTo() { return offeredTo; }

        /** {@link CameraPhase#OFFERED}: when the offer was written (monotonic clock, nanoseconds). */
        long offeredAt() { return offeredAt; }

        /** {@link CameraPhase#UNRUNNABLE}: until when (monotonic clock, nanoseconds). */
        long unrunnableUntil() { return unrunnableUntil; }

        @Override
        public String toString() { return "camera " + id + " (" + phase + ")"; }
    }

    private final HeldLeases held;
    private final Map<String, Camera> cameras = new TreeMap<>();

    KnownCameras(HeldLeases held) { this.held = held; }

    /** The camera's entry; null when it is {@link CameraPhase#FREE}. */
    Camera get(String camera) { return cameras.get(camera); }

    CameraPhase phase(String camera) {
        Camera c = cameras.get(camera);
        return c == null ? CameraPhase.FREE : c.phase;
    }

    /** Whether {@code c} is still its camera's entry (not one that went back to free, or was replaced since). */
    boolean current(Camera c) { return cameras.get(c.id) == c; }

    /** The cameras in any of {@code phases}, by id (a copy: transitions may follow). */
    List<Camera> in(CameraPhase first, CameraPhase... rest) {
        Set<CameraPhase> wanted = EnumSet.of(first, rest);
        List<Camera> out = new ArrayList<>();
        for (Camera c : cameras.values()) {
            if (wanted.contains(c.phase)) out.add(c);
        }
        return out;
    }

    /** The cameras whose lease this node holds, by id. */
    List<Camera> holding() { return in(CameraPhase.STARTING, CameraPhase.HELD, CameraPhase.OFFERED); }

    /** Whether some camera is in {@code phase}. */
    boolean any(CameraPhase phase) { return cameras.values().stream().anyMatch(c -> c.phase == phase); }

    /** Whether some camera is being started or stopped here. */
    boolean anyBusy() { return cameras.values().stream().anyMatch(c -> c.phase.busy()); }

    /** How many cameras are known here (each one not free). */
    int size() { return cameras.size(); }

    // ---- transitions ----------------------------------------------------------------------------------------------

    /** A free camera enters {@code to} (a claim, a hand-over offered here); its new entry. */
    Camera enter(String camera, CameraPhase to) {
        Camera known = cameras.get(camera);
        if (known != null) throw illegal(camera, known.phase, to, "it already has an entry");
        if (!CameraPhase.FREE.next().contains(to) || to == CameraPhase.UNRUNNABLE) throw illegal(camera, CameraPhase.FREE, to, null);
        Camera c = new Camera(camera, to);
        cameras.put(camera, c);
        return c;
    }

    /** A free camera cannot run here until {@code untilNanos}. */
    void unrunnable(String camera, long untilNanos) {
        Camera known = cameras.get(camera);
        if (known != null) throw illegal(camera, known.phase, CameraPhase.UNRUNNABLE, "it already has an entry");
        Camera c = new Camera(camera, CameraPhase.UNRUNNABLE);
        c.unrunnableUntil = untilNanos;
        cameras.put(camera, c);
    }

    /** A camera that was starting here cannot run here until {@code untilNanos} (its lease, if any, goes). */
    void failedToStart(Camera c, long untilNanos) {
        move(c, CameraPhase.UNRUNNABLE);
        c.unrunnableUntil = untilNanos;
    }

    /**
     * A claim won ({@link CameraPhase#CLAIMING} to {@link CameraPhase#STARTING}, {@link CameraPhase#TAKING_OVER} to
     * {@link CameraPhase#HELD}): the lease, written as {@code text} by a compare-and-set that began at {@code began},
     * is this node's, and its camera's detections are published from now on.
     */
    void hold(Camera c, CameraPhase to, Lease lease, String text, long began) {
        check(c, to);
        if (!to.holdsLease() || c.phase.holdsLease()) throw illegal(c.id, c.phase, to, "a claim leads from a phase without the lease to one with it");
        c.written = text;
        c.renewedAt = began;
        held.put(c.id, lease);
        c.phase = to;
    }

    /** A held camera's offer to {@code heir} was written at {@code atNanos}. */
    void offered(Camera c, String heir, long atNanos) {
        move(c, CameraPhase.OFFERED);
        c.offeredTo = heir;
        c.offeredAt = atNanos;
    }

    /**
     * Moves {@code c} to {@code to}: leaving the phases that hold the lease removes it from {@link HeldLeases} (nothing
     * more is published) and forgets what was written; going back to free removes the entry.
     */
    void move(Camera c, CameraPhase to) {
        check(c, to);
        if (to.holdsLease() && !c.phase.holdsLease()) throw illegal(c.id, c.phase, to, "a claim takes the lease (hold)");
        if (c.phase.holdsLease() && !to.holdsLease()) {
            held.remove(c.id);
            c.written = null;
            c.renewedAt = 0;
            c.rewriteLogged = false;
        }
        if (c.phase == CameraPhase.OFFERED) c.offeredTo = null;
        c.phase = to;
        if (to == CameraPhase.FREE) cameras.remove(c.id);
    }

    /** Cameras that could not run here and whose time is up become free (tried again). */
    void expireUnrunnable(long nowNanos) {
        for (Camera c : in(CameraPhase.UNRUNNABLE)) {
            if (c.unrunnableUntil < nowNanos) move(c, CameraPhase.FREE);
        }
    }

    private void check(Camera c, CameraPhase to) {
        if (!current(c)) throw illegal(c.id, c.phase, to, "its entry is no longer the camera's");
        if (!c.phase.next().contains(to)) throw illegal(c.id, c.phase, to, null);
    }

    private static IllegalStateException illegal(String camera, CameraPhase from, CameraPhase to, String why) {
        String message = "camera " + camera + ": " + from + " -> " + to + " is not a transition of camera ownership"
                + (why == null ? "" : " (" + why + ")") + ": a bug, the camera stays " + from;
        IllegalStateException e = new IllegalStateException(message);
        LOG.log(Level.ERROR, message, e);
        return e;
    }
}
