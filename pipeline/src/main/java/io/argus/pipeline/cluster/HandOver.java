package io.argus.pipeline.cluster;

import io.argus.pipeline.cluster.KnownCameras.Camera;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The warm hand-over of a camera from its owner to an heir (a stopping node, or rebalancing): the owner offers the
 * lease to the heir (it still owns and publishes the camera) and tells it; the heir starts the camera without
 * publishing and marks the offer ready; the owner stops publishing and its camera, releases the lease to the heir and
 * tells it; the heir claims it and publishes from its running camera. Two nodes never publish a camera at once, and
 * the camera's gap is a lease round, not a camera start. An offer made to rebalance that its heir has not taken up
 * within {@link #handoverMs} is withdrawn and the camera stays; a stopping node releases what is left plainly
 * ({@link #releaseAll}). Both sides are here: the owner's ({@link #offer}, {@link #checkOffers}) and the heir's
 * ({@link #prepareStandby}, {@link #onNotice}).
 */
final class HandOver {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    /** Tells {@code node} about {@code camera}: offered to it, or released to it. */
    interface Notify {
        void tell(String node, String camera);
    }

    /** What the owner does about an offer, from the lease it reads. */
    enum Verdict {
        /** The heir is not ready yet. */
        WAIT,
        /** The heir was not ready in time (rebalancing): the offer is taken back, the camera stays. */
        WITHDRAW,
        /** The heir is ready: stop here, release the lease to it. */
        HAND_OVER,
        /** Another node claimed the camera (a newer epoch, or the same epoch under another owner): stop here. */
        TAKEN,
        /** Deleted, garbage, or an older lease put back: neither the heir's answer nor a claim; this node writes it again. */
        REWRITE
    }

    private final KnownCameras table;
    private final HeldLeases held;
    private final SealedMap<String> leases;
    private final LeaseKeeping keeping;
    private final Claiming claiming;
    private final LocalCameras local;
    private final OwnershipClock clock;
    private final long leaseMs;
    private final long handoverMs;
    private final Notify notify;
    private final Supplier<List<String>> members;
    private final BooleanSupplier enoughMembers;
    private boolean leaving;
    private Promise<Void> handedOver;

    HandOver(KnownCameras table, HeldLeases held, SealedMap<String> leases, LeaseKeeping keeping, Claiming claiming, LocalCameras local,
             OwnershipClock clock, long leaseMs, long handoverMs, Notify notify, Supplier<List<String>> members, BooleanSupplier enoughMembers) {
        this.table = table;
        this.held = held;
        this.leases = leases;
        this.keeping = keeping;
        this.claiming = claiming;
        this.local = local;
        this.clock = clock;
        this.leaseMs = leaseMs;
        this.handoverMs = handoverMs;
        this.notify = notify;
        this.members = members;
        this.enoughMembers = enoughMembers;
    }

    /** This node stops: it offers its cameras and takes none on standby from now on. */
    boolean leaving() { return leaving; }

    // ---- the owner's side -----------------------------------------------------------------------------------------

    /**
     * This node stops: plans an heir for every held camera ({@link Rebalancing#heirs}) and offers them; completes when
     * each was handed over (or taken), at once when no member can take any. The offers themselves are made by the
     * rounds ({@link #offerPlanned}), between renewals.
     *
     * @param leaseTexts the valid leases (for the members' loads)
     */
    Future<Void> leave(Map<String, JsonObject> directory, List<String> leaseTexts) {
        handedOver = Promise.promise();
        List<String> mine = table.holding().stream().map(c -> c.id).toList();
        Map<String, String> plan = Rebalancing.heirs(mine, members.get(), directory, leaseTexts, held.node());
        if (plan.isEmpty()) return Future.succeededFuture();
        plan.forEach((camera, heir) -> {
            Camera c = table.get(camera);
            if (c != null) c.plannedHeir = heir;
        });
        offerPlanned();
        return handedOver.future();
    }

    /** Notes that this node stops (before it plans, so that nothing more is taken on standby meanwhile). */
    void beginLeaving() { leaving = true; }

    /** Leaving: offers each running camera with a planned heir (one still starting is offered once it runs). */
    void offerPlanned() {
        for (Camera c : table.in(CameraPhase.HELD)) {
            if (c.plannedHeir != null) offer(c, c.plannedHeir, "this node stops");
        }
    }

    /**
     * Offers a running held camera to {@code heir}: compare-and-set against the text written last (a camera whose
     * lease write is in flight waits for the next round: the offer would race the renewal and lose), then tells the
     * heir, who starts the camera on standby without waiting for its next survey ({@link #onNotice}).
     */
    Future<Void> offer(Camera c, String heir, String why) {
        if (c.phase() != CameraPhase.HELD || c.leaseWriteInFlight) return Future.succeededFuture();
        c.leaseWriteInFlight = true;
        String mine = c.written;
        String offer = Lease.parse(mine).offeredTo(heir).text();
        return leases.replaceIfPresent(c.id, mine, offer).andThen(ar -> {
            c.leaseWriteInFlight = false;
            if (ar.failed() || !ar.result() || !mine.equals(c.written)) return; // the renewal round decides
            long at = clock.nanoTime();
            c.written = offer;
            c.renewedAt = at;
            table.offered(c, heir, at);
            LOG.log(Level.INFO, "camera {0}: offered to {1} ({2})", c.id, heir, why);
            notify.tell(heir, c.id);
        }).mapEmpty();
    }

    /**
     * What to do about the offer of {@code c} (this node's lease text {@code mine}) given what is stored now
     * ({@code stored}: null when nothing is).
     */
    Verdict judge(Camera c, String mine, SealedMap.Stored<String> stored, long nowNanos) {
        String text = stored != null && stored.valid() ? stored.value() : null;
        if (mine.equals(text)) {
            boolean late = nowNanos - c.offeredAt() > TimeUnit.MILLISECONDS.toNanos(handoverMs);
            return !leaving && late ? Verdict.WITHDRAW : Verdict.WAIT;
        }
        Lease was = Lease.parse(mine);
        Lease now = text != null ? Lease.parse(text) : null;
        if (now == null) return Verdict.REWRITE;
        if (now.heirReady() && now.owner().equals(held.node()) && now.epoch() == was.epoch() && now.heir().equals(c.offeredTo())) {
            return Verdict.HAND_OVER;
        }
        return LeaseKeeping.takenFrom(now, was) ? Verdict.TAKEN : Verdict.REWRITE;
    }

    /**
     * Each round while an offer is out: reads each offered lease and acts on it ({@link #judge}): once the heir marked
     * it ready, stops publishing and the camera here, then releases the lease to the heir and tells it, so it claims at
     * once. An offer to rebalance that is withdrawn leaves the camera here: rebalancing offers again later, and the
     * camera is never silent while its heir is slow.
     */
    void checkOffers() {
        for (Camera c : table.in(CameraPhase.OFFERED)) {
            if (c.leaseWriteInFlight) continue; // a withdrawal or a rewrite in flight
            String mine = c.written;
            leases.read(c.id).onSuccess(stored -> {
                if (!table.current(c) || c.phase() != CameraPhase.OFFERED || c.leaseWriteInFlight || !mine.equals(c.written)) return;
                String heir = c.offeredTo();
                switch (judge(c, mine, stored, clock.nanoTime())) {
                    case WAIT -> { }
                    case WITHDRAW -> withdraw(c, mine, heir);
                    case REWRITE -> keeping.rewrite(c, stored, mine, "offered to " + heir);
                    case HAND_OVER -> {
                        String ready = stored.value();
                        local.stop(c, "handed over to " + heir); // publishing stops before the heir may claim
                        leases.replaceIfPresent(c.id, ready, Lease.parse(ready).releasedTo(heir).text()).onSuccess(ok -> {
                            if (ok) notify.tell(heir, c.id);
                        });
                    }
                    case TAKEN -> local.stop(c, "lease taken by another node");
                }
                completeIfHandedOver();
            });
        }
        completeIfHandedOver();
    }

    private void completeIfHandedOver() {
        if (held.size() == 0 && handedOver != null) handedOver.tryComplete();
    }

    /** Takes back an offer its heir did not take up: this node keeps the camera and renews its lease again. */
    private void withdraw(Camera c, String mine, String heir) {
        if (c.leaseWriteInFlight) return;
        c.leaseWriteInFlight = true;
        String kept = Lease.parse(mine).renewed(clock.currentTimeMillis() + leaseMs).text();
        long began = clock.nanoTime();
        leases.replaceIfPresent(c.id, mine, kept).onComplete(ar -> {
            c.leaseWriteInFlight = false;
            // failed or lost: the heir marked it ready meanwhile (the next round hands it over), or it was taken
            if (ar.failed() || !ar.result() || !mine.equals(c.written)) return;
            c.written = kept;
            c.renewedAt = began;
            table.move(c, CameraPhase.HELD);
            LOG.log(Level.INFO, "camera {0}: offer to {1} withdrawn (not ready within {2} ms): it stays here", c.id, heir, handoverMs);
        });
    }

    /**
     * This node stops: releases every lease it still holds (none after a complete hand-over), an offer not yet taken
     * to its heir, whose camera may already run, the rest to whoever claims first. Nothing more is published here.
     */
    List<Future<?>> releaseAll() {
        List<Future<?>> releases = new ArrayList<>();
        for (Camera c : table.holding()) {
            String mine = c.written;
            String heir = c.phase() == CameraPhase.OFFERED ? c.offeredTo() : null;
            // a camera still starting is stopped once it runs; the app stops the others with every camera
            table.move(c, c.phase() == CameraPhase.STARTING ? CameraPhase.STOP_AFTER_START : CameraPhase.FREE);
            Lease released = heir != null ? Lease.parse(mine).releasedTo(heir) : Lease.parse(mine).released();
            releases.add(leases.replaceIfPresent(c.id, mine, released.text()));
            LOG.log(Level.INFO, "camera {0}: released (this node stops)", c.id);
        }
        return releases;
    }

    // ---- the heir's side ------------------------------------------------------------------------------------------

    /**
     * Hand-overs offered to this node, from a survey: starts each offered camera here without publishing, then marks
     * the offer ready; stops standby cameras whose offer was withdrawn (or whose owner died: the lease is then claimed
     * the ordinary way, by this node or another).
     *
     * @param leaseTexts the believed leases; {@code suspect}: cameras whose stored lease is not believed (no
     *                   withdrawal: its owner rewrites it within a round)
     */
    void prepareStandby(Map<String, JsonObject> cameras, Map<String, String> leaseTexts, Set<String> suspect, List<String> live) {
        String me = held.node();
        for (Map.Entry<String, String> e : leaseTexts.entrySet()) {
            String camera = e.getKey();
            Lease l = Lease.parse(e.getValue());
            if (!l.offered() || !me.equals(l.heir()) || !live.contains(l.owner()) || !cameras.containsKey(camera)) continue;
            startStandby(camera, e.getValue(), cameras.get(camera).getJsonObject("definition"));
        }
        for (Camera c : table.in(CameraPhase.STANDBY)) {
            if (suspect.contains(c.id)) continue;
            String t = leaseTexts.get(c.id);
            Lease l = t != null ? Lease.parse(t) : null;
            boolean stillOffered = l != null && me.equals(l.heir())
                    && (((l.offered() || l.heirReady()) && live.contains(l.owner())) || l.free());
            if (!stillOffered) local.stop(c, "hand-over withdrawn");
        }
    }

    /** Starts an offered camera here without publishing (no lease in {@link HeldLeases}), then marks the offer ready. */
    void startStandby(String camera, String offerText, JsonObject definition) {
        CameraPhase phase = table.phase(camera);
        if (leaving || (phase != CameraPhase.FREE && phase != CameraPhase.UNRUNNABLE)) return;
        if (!claiming.mayRun(camera, definition, clock.nanoTime())) return;
        Lease offer = Lease.parse(offerText);
        Camera c = table.enter(camera, CameraPhase.PREPARING);
        local.startOnStandby(c, definition, offer).onComplete(ar -> {
            if (ar.failed()) {
                LOG.log(Level.WARNING, "camera {0}: offered to this node but cannot run here: {1}", camera, ar.cause().getMessage());
                return;
            }
            leases.replaceIfPresent(camera, offerText, offer.ready().text());
        });
    }

    /** Whether a notice about {@code camera} can change anything now (nothing of it is in flight here). */
    boolean listens(String camera) {
        CameraPhase p = table.phase(camera);
        boolean idle = p == CameraPhase.FREE || p == CameraPhase.STANDBY || p == CameraPhase.UNRUNNABLE;
        return idle && !leaving && enoughMembers.getAsBoolean();
    }

    /**
     * Another node told this one about {@code camera}, whose lease and list entry were then read ({@code text},
     * {@code entry}; null when absent): it offered it here (start it on standby), or released it here after the standby
     * camera was ready, or released it plainly to this node: claim it now, by one compare-and-set. Without the notice
     * this node learnt of it only from its next survey, which reads whole maps; on a node that has just joined such a
     * read can wait (Hazelcast migrating partitions to it, most likely), a new survey starts only a lease later, and a
     * camera rebalanced onto a restarted node was silent for 10.4-10.5 s in 3 of 8 restarts of the 2026-11-28 cluster
     * soak. The survey still does all of this should a notice be lost.
     */
    void onNotice(String camera, String text, JsonObject entry) {
        if (text == null || entry == null || !listens(camera)) return;
        Lease l = Lease.parse(text);
        if (!held.node().equals(l.heir())) return;
        JsonObject definition = entry.getJsonObject("definition");
        if (l.offered()) {
            if (members.get().contains(l.owner())) startStandby(camera, text, definition);
        } else if (l.free()) {
            Claiming.Claim claim = new Claiming.Claim(camera, null, text, definition);
            if (table.phase(camera) == CameraPhase.STANDBY) {
                claiming.claimOne(claim);
            } else if (claiming.mayRun(camera, definition, clock.nanoTime())) {
                LOG.log(Level.INFO, "camera {0}: released to this node, claiming", camera);
                claiming.claimOne(claim);
            }
        }
    }
}
