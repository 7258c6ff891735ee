package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Decides which cameras this node runs (docs/cluster.md). Every {@code renewIntervalMs} it
 * <ol>
 * <li>renews the leases it holds, each on its own ({@link LeaseKeeping}: compare-and-set against the text it wrote
 *     last; a lease another node took stops its camera here at once, one a stranger deleted, garbled or replayed is
 *     written again), and stops a camera whose renewal has not succeeded for {@code leaseMs};</li>
 * <li>surveys, unless the previous survey still waits: reads the camera list, the leases and the node directory;</li>
 * <li>claims cameras that are free, whose owner left the cluster, or whose lease was not renewed for
 *     {@code leaseMs}, up to its {@link FairShare} ({@link Claiming});</li>
 * <li>hands one camera over when it holds more than its share rounded down while another node holds less than its
 *     own (a node joined; {@link Rebalancing}): warm ({@link HandOver}), so the camera is not silent meanwhile, and
 *     to that node only, so cameras spread again without bouncing between nodes.</li>
 * </ol>
 * Each camera it knows is in one {@link CameraPhase} ({@link KnownCameras}); a camera runs here through the
 * {@link io.argus.pipeline.camera.CameraSupervisor} ({@link LocalCameras}) and is published only while its lease is in
 * {@link HeldLeases}. With fewer than {@code minSize} members this node claims nothing and stops what it runs (it may
 * be the small side of a network split). On stop (SIGTERM) it hands its cameras over warm; what is not handed over
 * within {@link #handoverMs} is released plainly, for any node to claim.
 */
public final class CameraOwnership extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.cluster");

    private final ClusterConfig cluster;
    private final ArgusConfig config;
    private final Supplier<List<String>> members;
    private final HeldLeases held;
    private final JsonObject self;
    private final OwnershipClock clock = OwnershipClock.SYSTEM;
    private final long leaseNanos;
    private final KnownCameras table;
    private final LeaseWatch watch;
    /** Which stored leases to believe: a stranger may delete, garble or replay them ({@link LeaseTrust}). */
    private final LeaseTrust trust = new LeaseTrust();
    private SealedMap<String> leases;
    private CameraCatalog catalog;
    private InvalidValues invalid;
    private NodeDirectory nodes;
    private LocalCameras local;
    private LeaseKeeping keeping;
    private Claiming claiming;
    private HandOver handOver;
    private Set<String> listed = new HashSet<>();
    private long timer = -1;
    private boolean surveying;
    private long surveyStarted;
    private volatile boolean quorum;
    private boolean warnedQuorum;
    private boolean ownEntryRewritten;
    private MessageConsumer<JsonObject> handoverNotices;
    /** Models whose id means other content elsewhere in the cluster ({@link ModelCatalog}): id to the reason. */
    private Map<String, String> refusedModels = Map.of();

    /**
     * @param members the ids of the cluster's current members (this node's view; Hazelcast's member list)
     * @param self    this node's directory entry ({@code id}, addresses, {@code weight})
     */
    public CameraOwnership(ClusterConfig cluster, ArgusConfig config, Supplier<List<String>> members, HeldLeases held,
                           JsonObject self) {
        this.cluster = cluster;
        this.config = config;
        this.members = members;
        this.held = held;
        this.self = self;
        this.watch = new LeaseWatch(cluster.leaseMs());
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(cluster.leaseMs());
        this.table = new KnownCameras(held);
    }

    /** The clustered address where a node hears that a camera was offered or released to it in a hand-over. */
    static String handoverAddress(String node) { return "argus.cluster.handover." + node; }

    /** How long a stopping node waits for its heirs before it releases the rest plainly. */
    long handoverMs() { return Math.min(5000, cluster.leaseMs() / 2); }

    /** Enough members to run cameras (readiness). */
    public boolean quorum() { return quorum; }

    @Override
    public Future<?> start() {
        ClusterMaps shared = ClusterMaps.of(vertx);
        invalid = shared.invalid();
        return Future.all(List.of(shared.texts(Lease.MAP), shared.texts(CameraCatalog.MAP), shared.texts(NodeDirectory.MAP),
                        shared.texts(ModelCatalog.MAP), shared.texts(CameraStates.MAP)))
                .compose(maps -> {
                    leases = maps.resultAt(0);
                    catalog = new CameraCatalog(maps.resultAt(1));
                    nodes = new NodeDirectory(maps.resultAt(2));
                    wire(new SupervisorControl(vertx, new CameraStates(maps.resultAt(4))));
                    return new ModelCatalog(maps.resultAt(3)).register(config.models(), held.node());
                })
                .compose(refused -> {
                    refusedModels = Map.copyOf(refused);
                    refused.values().forEach(reason -> LOG.log(Level.WARNING, reason));
                    if (!refused.isEmpty()) self.put("refusedModels", new JsonObject(new TreeMap<String, Object>(refused)));
                    // Listening before the directory entry is written: a node releases cameras only to nodes in the
                    // directory, and tells them at this address (rebalance), so no notice finds nobody listening.
                    handoverNotices = vertx.eventBus().consumer(handoverAddress(held.node()), m -> onHandoverNotice(m.body().getString("camera")));
                    return handoverNotices.completion().compose(v -> nodes.put(self));
                })
                .onSuccess(v -> timer = vertx.setPeriodic(1, cluster.renewIntervalMs(), t -> round()));
    }

    /** Makes the parts of camera ownership, over the maps just opened and this node's supervisor. */
    private void wire(CameraControl control) {
        local = new LocalCameras(table, control, leases, clock);
        keeping = new LeaseKeeping(table, leases, local, clock, cluster.leaseMs());
        claiming = new Claiming(table, held, leases, trust, watch, local, clock, cluster.leaseMs(), this::enoughMembers, this::whyNotRunnable);
        HandOver.Notify notify = (node, camera) -> vertx.eventBus().send(handoverAddress(node), new JsonObject().put("camera", camera));
        handOver = new HandOver(table, held, leases, keeping, claiming, local, clock, cluster.leaseMs(), handoverMs(), notify, members,
                this::enoughMembers);
    }

    @Override
    public Future<?> stop() {
        if (handOver == null) return Future.succeededFuture(); // never started
        handOver.beginLeaving();
        return leave().timeout(handoverMs(), TimeUnit.MILLISECONDS)
                .transform(ar -> {
                    if (ar.failed()) LOG.log(Level.INFO, "hand-over incomplete after {0} ms ({1}): releasing the rest", handoverMs(), ar.cause().getMessage());
                    return releaseAll();
                });
    }

    /**
     * Marks this node leaving in the directory (weight 0), so the others' shares make room for its cameras and none
     * rebalances a camera onto it, then hands its cameras over ({@link HandOver#leave}).
     */
    private Future<Void> leave() {
        if (held.size() == 0) return Future.succeededFuture();
        return nodes.put(leavingEntry())
                .compose(v -> Future.all(leases.entries(), nodes.entries()))
                .compose(all -> {
                    Map<String, String> texts = all.resultAt(0);
                    Map<String, JsonObject> directory = all.resultAt(1);
                    return handOver.leave(directory, List.copyOf(texts.values()));
                });
    }

    private JsonObject leavingEntry() { return self.copy().put("weight", 0.0).put("leaving", true); }

    /** Releases what is still held (nothing after a complete hand-over) and leaves the directory. */
    private Future<?> releaseAll() {
        if (timer >= 0) vertx.cancelTimer(timer);
        if (handoverNotices != null) handoverNotices.unregister();
        quorum = false;
        List<Future<?>> releases = handOver.releaseAll();
        // The directory entry stays, marked leaving (weight 0), until the others prune it once this node is no longer a
        // member: removed now, this node would count as a member of default weight 1 for a moment, and the others
        // would rebalance cameras onto it (its heirs waited a lease for them). Bounded: a map call may wait for a
        // member that died; the leases then expire instead.
        return Future.join(releases).transform(ar -> nodes.put(leavingEntry()))
                .timeout(3, TimeUnit.SECONDS).recover(e -> Future.succeededFuture());
    }

    /**
     * One round: fence, renew (each lease on its own, so a renewal that waits for a hung member holds up no other),
     * then survey and claim unless the previous survey still waits (reading every lease touches every member).
     */
    private void round() {
        long now = clock.nanoTime();
        keeping.fence(now);
        List<String> live = members.get();
        if (!quorate(live)) return;
        keeping.renewAll(now);
        if (handOver.leaving()) {
            handOver.offerPlanned();
            handOver.checkOffers();
            return;
        }
        if (table.any(CameraPhase.OFFERED)) handOver.checkOffers();
        if (surveying && now - surveyStarted < leaseNanos) return;
        if (surveying) LOG.log(Level.INFO, "ownership survey still waiting after {0} ms: starting another", cluster.leaseMs());
        surveying = true;
        surveyStarted = now;
        survey(live).onComplete(ar -> {
            long tookMs = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - now);
            if (surveyStarted == now) surveying = false;
            if (ar.failed()) LOG.log(Level.DEBUG, "ownership survey failed: " + ar.cause());
            // a slow survey delays every claim and rebalance; said, so that a long silence can be traced to it
            if (tookMs > cluster.leaseMs() / 2) LOG.log(Level.INFO, "ownership survey took {0} ms", tookMs);
        });
    }

    private boolean enoughMembers() { return members.get().size() >= cluster.minSize(); }

    /** Enough members in sight to run cameras; otherwise stops every camera here whose lease this node holds. */
    private boolean quorate(List<String> live) {
        boolean enough = live.size() >= cluster.minSize();
        quorum = enough;
        if (enough) {
            warnedQuorum = false;
            return true;
        }
        if (!warnedQuorum) {
            LOG.log(Level.WARNING, "cluster: {0} member(s) seen, minSize is {1}: running no camera", live.size(), cluster.minSize());
            warnedQuorum = true;
        }
        for (KnownCameras.Camera c : table.holding()) local.stop(c, "fewer than minSize members");
        return false;
    }

    /**
     * Reads the list, the leases and the directory; claims up to the fair share; rebalances. What a stranger wrote
     * into the maps (values that do not open or validate, older leases put back) is ignored here, never taken for a
     * node's word: the list keeps its cameras, their owners keep them ({@link LeaseTrust}), and this node's own
     * directory entry and camera entries it knew are written back.
     */
    private Future<Void> survey(List<String> live) {
        return Future.all(catalog.read(), leases.readAll(), nodes.entries())
                .compose(all -> {
                    CameraCatalog.Listing listing = all.resultAt(0);
                    Map<String, SealedMap.Stored<String>> stored = all.resultAt(1);
                    Map<String, JsonObject> directory = all.resultAt(2);
                    Map<String, JsonObject> cameras = listing.valid();
                    // an invalid entry hides no camera: it stays listed, and runs where it ran
                    noticeListChanges(listing.present());
                    Future<Void> dropped = keeping.releaseUnlisted(listing.present());
                    Future<Void> healed = catalog.heal(listing).compose(v -> keepOwnEntry(directory));
                    LeaseTrust.Judged judged = trust.judge(stored, invalid);
                    trust.retain(listing.present());
                    // this node's own weight is the one it knows, whatever a stranger did to its entry meanwhile
                    Map<String, JsonObject> announced = new HashMap<>(directory);
                    announced.put(held.node(), self);
                    Map<String, Double> weights = NodeDirectory.weights(live, announced);
                    int share = FairShare.of(cameras.size(), weights, held.node());
                    handOver.prepareStandby(cameras, judged.believed(), judged.suspect().keySet(), live);
                    List<Claiming.Claim> claims = claiming.claimable(cameras, judged, live, clock.nanoTime());
                    // shares are counted from the believed leases: while a stranger's write hides one (suspect, or
                    // deleted from a living holder) its holder would count a camera short and be handed one more
                    boolean leasesIntact = judged.suspect().isEmpty() && cameras.keySet().stream()
                            .allMatch(c -> judged.believed().containsKey(c) || trust.newest(c) == null);
                    return Future.join(dropped, healed).<Void>mapEmpty().recover(e -> Future.succeededFuture())
                            .compose(v -> claiming.claim(claims, share))
                            .compose(v -> rebalance(cameras.size(), judged.believed(), live, weights,
                                    claims.isEmpty() && leasesIntact, directory))
                            .compose(v -> nodes.prune(live, directory));
                });
    }

    /**
     * Hands one camera over when {@link Rebalancing#next} says so: warm, as when a node stops: offered to the heir,
     * started there on standby, stopped here and released to the heir only once it runs there; an heir not ready within
     * {@link #handoverMs} has its offer withdrawn and the camera stays here. Released cold instead (stopped at once), a
     * camera waited for its heir: 5.4 and 12.6 s of silence in the 2026-11-25 cluster soak while restarted heirs were
     * still loading models (since then the heir must have written its directory entry), and still 10.4-10.5 s in 3 of 8
     * rebalances on 2026-11-28 and 1 of 5 in a shorter run after the heir was told directly (docs/reliability.md).
     */
    private Future<Void> rebalance(int cameras, Map<String, String> leaseTexts, List<String> live, Map<String, Double> weights,
                                   boolean noneWaiting, Map<String, JsonObject> directory) {
        boolean quiet = !table.anyBusy() && !table.any(CameraPhase.OFFERED);
        return Rebalancing.next(cameras, held.cameras(), leaseTexts, live, weights, directory, held.node(), noneWaiting, quiet)
                .map(move -> handOver.offer(table.get(move.camera()), move.heir(), move.why()))
                .orElse(Future.succeededFuture());
    }

    /** A hand-over notice from another node: read the camera's lease and entry, then let {@link HandOver} act. */
    private void onHandoverNotice(String camera) {
        if (camera == null || !handOver.listens(camera)) return;
        Future.all(leases.get(camera), catalog.get(camera))
                .onSuccess(all -> handOver.onNotice(camera, all.resultAt(0), all.resultAt(1)));
    }

    /**
     * Writes this node's directory entry back when it is missing or not what this node wrote (deleted or overwritten
     * by a stranger): the others would count this node out of the shares and hand it nothing.
     */
    private Future<Void> keepOwnEntry(Map<String, JsonObject> directory) {
        if (handOver.leaving() || self.equals(directory.get(held.node()))) return Future.succeededFuture();
        if (!ownEntryRewritten) {
            // once: a stranger writing over it every round would otherwise fill the log
            LOG.log(Level.WARNING, "cluster: this node''s directory entry was {0}: written again (said once; see "
                    + "argus_cluster_invalid_values_total)", directory.containsKey(held.node()) ? "changed" : "missing or invalid");
            ownEntryRewritten = true;
        }
        return nodes.put(self);
    }

    /** Tells this node's WebSocket gateway about cameras added to or removed from the cluster's list. */
    private void noticeListChanges(Set<String> now) {
        for (String id : now) {
            if (!listed.contains(id)) vertx.eventBus().publish(Addresses.CLUSTER_CAMERA_EVENTS, new JsonObject().put("event", "added").put("id", id));
        }
        for (String id : listed) {
            if (!now.contains(id)) vertx.eventBus().publish(Addresses.CLUSTER_CAMERA_EVENTS, new JsonObject().put("event", "removed").put("id", id));
        }
        listed = new HashSet<>(now);
    }

    /** Why the camera of {@code definition} cannot run here (its model is not served here, its source is not valid here); null when it can. */
    private String whyNotRunnable(JsonObject definition) {
        try {
            CameraConfig cam = CameraConfig.fromJson(definition, config.modelIds(), config.file().toAbsolutePath().getParent());
            if (refusedModels.containsKey(cam.model())) return refusedModels.get(cam.model());
            return config.modelIds().contains(cam.model()) ? null : "model " + cam.model() + " is not served here";
        } catch (ConfigException | IllegalArgumentException | ClassCastException e) {
            return String.valueOf(e.getMessage());
        }
    }
}
