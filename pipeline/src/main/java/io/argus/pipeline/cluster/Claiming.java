package io.argus.pipeline.cluster;

import io.argus.pipeline.cluster.KnownCameras.Camera;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Claims cameras: decides from a survey which ones this node may claim (free, released to it, their owner gone, or
 * their lease not renewed for a whole lease, {@link LeaseWatch}; a suspect lease only as {@link LeaseTrust} allows),
 * then claims them one after the other up to its {@link FairShare}: putIfAbsent for a camera never leased, else a
 * compare-and-set with the next epoch, so of two nodes claiming at once exactly one wins. A camera on standby here
 * is taken over warm (it already runs); any other is started once claimed.
 */
final class Claiming {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    /**
     * A camera this node may claim: what is stored as its lease (null: nothing), that lease when believed (null: none,
     * or suspect), and the camera's definition.
     */
    record Claim(String camera, SealedMap.Stored<String> found, String believed, JsonObject definition) {}

    private final KnownCameras table;
    private final HeldLeases held;
    private final SealedMap<String> leases;
    private final LeaseTrust trust;
    private final LeaseWatch watch;
    private final LocalCameras local;
    private final OwnershipClock clock;
    private final long leaseMs;
    private final BooleanSupplier enoughMembers;
    private final Function<JsonObject, String> whyNotRunnable;

    /**
     * @param enoughMembers  whether this node sees {@code minSize} members now
     * @param whyNotRunnable why the camera of a definition cannot run here (its model, its source); null when it can
     */
    Claiming(KnownCameras table, HeldLeases held, SealedMap<String> leases, LeaseTrust trust, LeaseWatch watch, LocalCameras local,
             OwnershipClock clock, long leaseMs, BooleanSupplier enoughMembers, Function<JsonObject, String> whyNotRunnable) {
        this.table = table;
        this.held = held;
        this.leases = leases;
        this.trust = trust;
        this.watch = watch;
        this.local = local;
        this.clock = clock;
        this.leaseMs = leaseMs;
        this.enoughMembers = enoughMembers;
        this.whyNotRunnable = whyNotRunnable;
    }

    /** Whether {@code camera} is in a phase from which it may be claimed: free, or on standby here (warm). */
    private boolean claimablePhase(String camera) {
        CameraPhase p = table.phase(camera);
        return p == CameraPhase.FREE || p == CameraPhase.STANDBY || p == CameraPhase.UNRUNNABLE;
    }

    /**
     * The cameras of {@code cameras} this node may claim now, in this node's own order (a hash of camera and node, so
     * nodes starting together rarely race for the same one). Every lease is watched on every survey, so that expiry is
     * measured from the last change seen.
     */
    List<Claim> claimable(Map<String, JsonObject> cameras, LeaseTrust.Judged judged, List<String> live, long now) {
        List<Claim> out = new ArrayList<>();
        String me = held.node();
        for (Map.Entry<String, String> e : judged.believed().entrySet()) {
            String camera = e.getKey();
            boolean expired = watch.expired(camera, e.getValue(), now);
            if (!cameras.containsKey(camera) || !claimablePhase(camera)) continue;
            // a lease this node sees for the first time may be an old one put back: it is claimed no sooner than the
            // next survey, when its holder (if any) has rewritten it
            if (judged.unknownBefore().contains(camera)) continue;
            Lease l = Lease.parse(e.getValue());
            boolean leftToAnother = !l.heir().isEmpty() && !l.heir().equals(me) && live.contains(l.heir());
            if ((l.free() && !leftToAnother) || (!l.free() && !live.contains(l.owner())) || expired) {
                out.add(new Claim(camera, null, e.getValue(), definition(cameras, camera)));
            }
        }
        for (Map.Entry<String, SealedMap.Stored<String>> e : judged.suspect().entrySet()) {
            // watched by their stored form: a holder rewrites its lease within a round, so one that stays the same for
            // a whole lease has none
            String camera = e.getKey();
            SealedMap.Stored<String> s = e.getValue();
            boolean expired = watch.expired(camera, "suspect " + Objects.hashCode(s.sealed()), now);
            if (!cameras.containsKey(camera) || !claimablePhase(camera)) continue;
            if (expired || trust.claimableAtOnce(camera, live, me)) out.add(new Claim(camera, s, null, definition(cameras, camera)));
        }
        for (String camera : cameras.keySet()) {
            if (judged.believed().containsKey(camera) || judged.suspect().containsKey(camera)) continue;
            // no lease: never leased (claimed at once), or deleted by someone while its holder lives (the holder puts
            // it back within a round; claimed only if it stays away a whole lease)
            boolean deletedFromLiving = trust.newest(camera) != null && !trust.claimableAtOnce(camera, live, me);
            boolean expired = watch.expired(camera, "absent", now);
            if (!claimablePhase(camera) || (deletedFromLiving && !expired)) continue;
            out.add(new Claim(camera, null, null, definition(cameras, camera)));
        }
        Set<String> watched = new HashSet<>(judged.believed().keySet());
        watched.addAll(judged.suspect().keySet());
        watched.addAll(cameras.keySet());
        watch.retain(watched);
        table.expireUnrunnable(now);
        out.removeIf(c -> !mayRun(c.camera(), c.definition(), now));
        out.sort(Comparator.comparingInt(c -> (c.camera() + "@" + me).hashCode()));
        return out;
    }

    private static JsonObject definition(Map<String, JsonObject> cameras, String camera) {
        return cameras.get(camera).getJsonObject("definition");
    }

    /**
     * Whether {@code camera} may be tried here: not marked unrunnable, and its model and source fit this node. A free
     * camera that does not fit is left alone for {@link LocalCameras#RETRY_UNRUNNABLE_NANOS}.
     */
    boolean mayRun(String camera, JsonObject definition, long now) {
        CameraPhase phase = table.phase(camera);
        if (phase == CameraPhase.UNRUNNABLE) return false;
        String why = whyNotRunnable.apply(definition);
        if (why == null) return true;
        LOG.log(Level.DEBUG, "camera {0} cannot run on this node: {1}", camera, why);
        if (phase == CameraPhase.FREE) table.unrunnable(camera, now + LocalCameras.RETRY_UNRUNNABLE_NANOS);
        return false;
    }

    /**
     * Claims cameras one after the other until this node holds its share, while it still sees {@code minSize} members.
     *
     * <p>The quorum is checked again here, not only at the round's start: a survey started while the members were in
     * sight can complete many seconds later, after a network split left this node alone (its reads wait for the
     * members it can no longer reach until Hazelcast removes them). Its leases then look expired ({@link LeaseWatch}:
     * the other side's renewals never reached this side), and without this check the minority claimed the majority's
     * cameras: two owners, and epochs on the minority's side that the merge throws away (ClusterPartitionTest).
     */
    Future<Void> claim(List<Claim> claims, int share) {
        Future<Void> chain = Future.succeededFuture();
        for (Claim c : claims) {
            chain = chain.compose(v -> held.size() >= share || !enoughMembers.getAsBoolean() ? Future.succeededFuture() : claimOne(c));
        }
        return chain;
    }

    /**
     * Claims one camera by one compare-and-set: a free camera cold (started once won), one on standby here warm (it
     * runs already; published from the claim on). A camera meanwhile in another phase (claimed by a hand-over notice,
     * say) is left as it is: this claim's compare-and-set would lose anyway.
     */
    Future<Void> claimOne(Claim claim) {
        String camera = claim.camera();
        CameraPhase phase = table.phase(camera);
        if (phase != CameraPhase.FREE && phase != CameraPhase.STANDBY) return Future.succeededFuture();
        boolean warm = phase == CameraPhase.STANDBY;
        Camera c;
        if (warm) {
            c = table.get(camera);
            table.move(c, CameraPhase.TAKING_OVER);
        } else {
            c = table.enter(camera, CameraPhase.CLAIMING);
        }
        CameraPhase lost = warm ? CameraPhase.STANDBY : CameraPhase.FREE;
        long began = clock.nanoTime();
        long expires = clock.currentTimeMillis() + leaseMs;
        String node = held.node();
        // a believed lease is claimed after it; one that cannot be believed (or none) after every epoch this node saw
        Lease next = claim.believed() != null ? Lease.parse(claim.believed()).claimedBy(node, expires)
                : new Lease(node, trust.nextEpoch(camera), expires, "");
        String text = next.text();
        Future<Boolean> won;
        if (claim.believed() != null) won = leases.replaceIfPresent(camera, claim.believed(), text);
        else if (claim.found() != null) won = leases.replace(camera, claim.found(), text);
        else won = leases.putIfAbsentStored(camera, text).map(previous -> previous == null);
        return won.transform(ar -> {
            if (ar.failed()) {
                table.move(c, lost);
                return Future.failedFuture(ar.cause());
            }
            if (!ar.result()) {
                table.move(c, lost); // another node was faster
                return Future.succeededFuture();
            }
            if (!enoughMembers.getAsBoolean()) {
                // the compare-and-set waited for an unreachable member and landed after the split (see claim): give
                // the lease back on this side and start nothing
                leases.replaceIfPresent(camera, text, next.released().text());
                table.move(c, lost);
                return Future.succeededFuture();
            }
            trust.saw(camera, next);
            if (warm) {
                table.hold(c, CameraPhase.HELD, next, text, began);
                // handed over warm: the camera already runs here; from now on its detections are published
                LOG.log(Level.INFO, "camera {0}: taken over warm, publishing (epoch {1})", camera, Long.toString(next.epoch()));
            } else {
                table.hold(c, CameraPhase.STARTING, next, text, began);
                local.start(c, claim.definition(), next);
            }
            return Future.succeededFuture();
        });
    }
}
