package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Decides which cameras this node runs (docs/cluster.md). Every {@code renewIntervalMs} it
 * <ol>
 * <li>renews the leases it holds, each on its own (compare-and-set against the text it wrote last: a failed
 *     renewal means another node took the camera, which stops here at once);</li>
 * <li>surveys, unless the previous survey still waits: reads the camera list, the leases and the node directory;</li>
 * <li>claims cameras that are free, whose owner left the cluster, or whose lease was not renewed for
 *     {@code leaseMs} ({@link LeaseWatch}), up to its {@link FairShare}: putIfAbsent for a camera never leased,
 *     else replace(old, new) with the next epoch, so of two nodes claiming at once exactly one wins;</li>
 * <li>releases one camera when it holds more than its share rounded down while another node holds less than its
 *     own (a node joined), naming that node its heir: the others leave it to the heir, so cameras spread again
 *     without bouncing between nodes; handed over warm, as below, so the camera is not silent meanwhile.</li>
 * </ol>
 * A camera runs here (through the {@link io.argus.pipeline.camera.CameraSupervisor}) only while its lease is in
 * {@link HeldLeases}; one whose renewal has not succeeded for {@code leaseMs} is stopped even when the map cannot be
 * reached, before any other node may take it. With fewer than {@code minSize} members this node claims nothing and
 * stops what it runs (it may be the small side of a network split).
 *
 * <p>On stop (SIGTERM) it hands its cameras over warm ({@link Lease}): it offers each to an heir (the least loaded
 * other members, in turn), the heir starts the camera without publishing and says it is ready, this node stops
 * publishing and releases the lease to the heir, who claims it and publishes at once from its running camera, so the
 * camera's gap is a lease round, not a camera start. What is not handed over within {@link #handoverMs} is released
 * plainly, for any node to claim.
 */
public final class CameraOwnership extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    private static final long RETRY_UNRUNNABLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ClusterConfig cluster;
    private final ArgusConfig config;
    private final Supplier<List<String>> members;
    private final HeldLeases held;
    private final JsonObject self;
    private final LeaseWatch watch;
    private final long leaseNanos;
    /** The lease text last written for each held camera: the expected value of the next compare-and-set. */
    private final Map<String, String> written = new HashMap<>();
    /** When the last successful renewal (or the claim) of each held camera began. */
    private final Map<String, Long> renewedAt = new HashMap<>();
    /** Cameras whose renewal is in flight: not renewed again until it completes. */
    private final Set<String> renewing = new HashSet<>();
    /** Cameras being started or stopped here: not claimed meanwhile. */
    private final Set<String> changing = new HashSet<>();
    private boolean ownEntryRewritten;
    /** Held cameras whose lease this node rewrote after a stranger's write, logged once each. */
    private final Set<String> rewriteLogged = new HashSet<>();
    /** Cameras that failed to start here (a file missing on this node, an unknown model): not retried until then. */
    private final Map<String, Long> unrunnableUntil = new HashMap<>();
    private SealedMap<String> leases;
    private CameraCatalog catalog;
    private InvalidValues invalid;
    /** Which stored leases to believe: a stranger may delete, garble or replay them ({@link LeaseTrust}). */
    private final LeaseTrust trust = new LeaseTrust();
    private NodeDirectory nodes;
    private CameraStates states;
    private Set<String> listed = new HashSet<>();
    private long timer = -1;
    private boolean surveying;
    private long surveyStarted;
    private volatile boolean quorum;
    private boolean warnedQuorum;
    /** Cameras running here on standby for a hand-over offered to this node: decoding, not published. */
    private final Set<String> standby = new HashSet<>();
    /** Leaving: the heir planned for each held camera. */
    private final Map<String, String> planned = new HashMap<>();
    /** Cameras offered to an heir (leaving, or rebalancing): the heir, and when the offer was written. */
    private final Map<String, Offer> offered = new HashMap<>();

    private record Offer(String heir, long atNanos) {}
    private boolean leaving;
    private Promise<Void> handedOver;
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
    }

    /** The clustered address where a node hears that a camera was released to it in a hand-over. */
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
                    states = new CameraStates(maps.resultAt(4));
                    return new ModelCatalog(maps.resultAt(3)).register(config.models(), held.node());
                })
                .compose(refused -> {
                    refusedModels = Map.copyOf(refused);
                    refused.values().forEach(reason -> LOG.log(Level.WARNING, reason));
                    if (!refused.isEmpty()) self.put("refusedModels", new JsonObject(new java.util.TreeMap<String, Object>(refused)));
                    // Listening before the directory entry is written: a node releases cameras only to nodes in the
                    // directory, and tells them at this address (rebalance), so no notice finds nobody listening.
                    handoverNotices = vertx.eventBus().consumer(handoverAddress(held.node()), m -> onHandoverNotice(m.body().getString("camera")));
                    return handoverNotices.completion().compose(v -> nodes.put(self));
                })
                .onSuccess(v -> timer = vertx.setPeriodic(1, cluster.renewIntervalMs(), t -> round()));
    }

    @Override
    public Future<?> stop() {
        leaving = true;
        return handOver().timeout(handoverMs(), TimeUnit.MILLISECONDS)
                .transform(ar -> {
                    if (ar.failed()) LOG.log(Level.INFO, "hand-over incomplete after {0} ms ({1}): releasing the rest", handoverMs(), ar.cause().getMessage());
                    return releaseAll();
                });
    }

    /**
     * Plans an heir for every held camera, the least loaded other members (not leaving) in turn, and completes when
     * each was handed over (or taken): the offers themselves are made by the rounds ({@link #offerPlanned}), between
     * renewals. Marks this node leaving in the directory first (weight 0), so the others' shares make room for its
     * cameras and none rebalances a camera onto it.
     */
    private Future<Void> handOver() {
        if (held.size() == 0) return Future.succeededFuture();
        handedOver = Promise.promise();
        return nodes.put(self.copy().put("weight", 0.0).put("leaving", true))
                .compose(v -> Future.all(leases.entries(), nodes.entries()))
                .compose(all -> {
                    Map<String, String> texts = all.resultAt(0);
                    Map<String, JsonObject> directory = all.resultAt(1);
                    List<String> heirs = new ArrayList<>();
                    for (String m : members.get()) {
                        // only members that wrote their directory entry: sealed, so they hold the cluster secret (a
                        // bare Hazelcast member would never take the camera up), and their models are loaded
                        JsonObject e = directory.get(m);
                        if (!m.equals(held.node()) && e != null && !e.getBoolean("leaving", false)) heirs.add(m);
                    }
                    if (heirs.isEmpty()) return Future.succeededFuture();
                    Map<String, Integer> load = new HashMap<>();
                    for (String h : heirs) load.put(h, 0);
                    for (String t : texts.values()) load.computeIfPresent(Lease.parse(t).owner(), (k, n) -> n + 1);
                    for (String camera : new java.util.TreeSet<>(held.cameras())) {
                        String heir = heirs.stream().min(Comparator.comparingInt((String h) -> load.get(h)).thenComparing(h -> h)).orElseThrow();
                        load.merge(heir, 1, Integer::sum);
                        planned.put(camera, heir);
                    }
                    offerPlanned();
                    return handedOver.future();
                });
    }

    /**
     * Leaving: offers each planned camera to its heir, compare-and-set against the text written last; a camera whose
     * renewal is in flight waits for the next round (the offer would race the renewal and lose).
     */
    private void offerPlanned() {
        for (String camera : held.cameras()) {
            String heir = planned.get(camera);
            if (heir != null) offer(camera, heir, "this node stops");
        }
    }

    /**
     * Offers a held camera to {@code heir}: compare-and-set against the text written last (a camera whose renewal is
     * in flight waits for the next round: the offer would race the renewal and lose), then tells the heir, who starts
     * the camera on standby without waiting for its next survey ({@link #onHandoverNotice}).
     */
    private Future<Void> offer(String camera, String heir, String why) {
        String mine = written.get(camera);
        if (mine == null || offered.containsKey(camera) || !renewing.add(camera)) return Future.succeededFuture();
        String offer = Lease.parse(mine).offeredTo(heir).text();
        return leases.replaceIfPresent(camera, mine, offer).andThen(ar -> {
            renewing.remove(camera);
            if (ar.failed() || !ar.result() || !mine.equals(written.get(camera))) return; // the renewal round decides
            written.put(camera, offer);
            long at = System.nanoTime();
            renewedAt.put(camera, at);
            offered.put(camera, new Offer(heir, at));
            LOG.log(Level.INFO, "camera {0}: offered to {1} ({2})", camera, heir, why);
            vertx.eventBus().send(handoverAddress(heir), new JsonObject().put("camera", camera));
        }).mapEmpty();
    }

    /**
     * Each round while an offer is out: for each offered camera, reads the lease; once the heir marked it ready, stops
     * publishing and the camera here, then releases the lease to the heir and tells it, so it claims at once. An
     * offer made to rebalance that the heir has not taken up within {@link #handoverMs} is withdrawn (the lease
     * renewed as this node's), and the camera simply stays here: rebalancing offers again later, and the camera is
     * never silent while its heir is slow.
     */
    private void checkOffers() {
        for (Map.Entry<String, Offer> e : Map.copyOf(offered).entrySet()) {
            String camera = e.getKey();
            String heir = e.getValue().heir();
            long offeredAt = e.getValue().atNanos();
            String mine = written.get(camera);
            if (mine == null) {
                offered.remove(camera);
                continue;
            }
            if (renewing.contains(camera)) continue; // a withdrawal in flight
            leases.read(camera).onSuccess(stored -> {
                if (!offered.containsKey(camera) || renewing.contains(camera) || !mine.equals(written.get(camera))) return;
                String text = stored != null && stored.valid() ? stored.value() : null;
                if (text != null && text.equals(mine)) { // the heir is not ready yet
                    if (!leaving && System.nanoTime() - offeredAt > TimeUnit.MILLISECONDS.toNanos(handoverMs())) withdraw(camera, mine, heir);
                    return;
                }
                Lease was = Lease.parse(mine);
                Lease now = text != null ? Lease.parse(text) : null;
                boolean ready = now != null && now.heirReady() && now.owner().equals(held.node()) && now.epoch() == was.epoch()
                        && now.heir().equals(heir);
                if (!ready && !(now != null && takenFrom(now, was))) {
                    // deleted, garbage, or an older lease put back: neither the heir's answer nor another node's claim
                    rewrite(camera, stored, mine, "offered to " + heir);
                    return;
                }
                offered.remove(camera);
                if (ready) {
                    stopCamera(camera, "handed over to " + heir); // publishing stops before the heir may claim
                    leases.replaceIfPresent(camera, text, now.releasedTo(heir).text()).onSuccess(ok -> {
                        if (ok) vertx.eventBus().send(handoverAddress(heir), new JsonObject().put("camera", camera));
                    });
                } else {
                    stopCamera(camera, "lease taken by another node");
                }
                if (held.size() == 0 && handedOver != null) handedOver.tryComplete();
            });
        }
        if (held.size() == 0 && handedOver != null) handedOver.tryComplete();
    }

    /** Whether {@code now} is another node's claim after {@code mine}: a later epoch, or the same one of another owner. */
    static boolean takenFrom(Lease now, Lease mine) {
        return now.epoch() > mine.epoch() || (now.epoch() == mine.epoch() && !now.owner().equals(mine.owner()));
    }

    /**
     * Puts this node's lease {@code text} of a held camera back where {@code found} was (null: nothing was): a deleted
     * lease, garbage, or an older lease put back are no other node's claim (those are sealed with a newer epoch), so
     * the holder keeps its camera and rewrites the lease by compare-and-set against what it found. Completes with
     * whether it was written; if not (changed again meanwhile) the next round looks again, and the fence stops the
     * camera should no write succeed for a whole lease.
     */
    private Future<Boolean> rewrite(String camera, SealedMap.Stored<String> found, String text, String state) {
        if (!renewing.add(camera)) return Future.succeededFuture(false);
        long began = System.nanoTime();
        Future<Boolean> done = found == null ? leases.putIfAbsentStored(camera, text).map(previous -> previous == null)
                : leases.replace(camera, found, text);
        return done.andThen(ar -> {
            renewing.remove(camera);
            if (ar.failed() || !ar.result() || held.get(camera) == null) return;
            renewedAt.put(camera, began);
            if (rewriteLogged.add(camera)) {
                String what = found == null ? "deleted" : !found.valid() ? "not valid (" + found.problem() + ")" : "an older one put back";
                LOG.log(Level.WARNING, "camera {0}: its lease in the cluster was {1}; rewritten, the camera stays here ({2})", camera, what, state);
            }
        }).otherwise(false);
    }

    /** Takes back an offer its heir did not take up: this node keeps the camera and renews its lease again. */
    private void withdraw(String camera, String mine, String heir) {
        if (!renewing.add(camera)) return;
        String kept = Lease.parse(mine).renewed(System.currentTimeMillis() + cluster.leaseMs()).text();
        long began = System.nanoTime();
        leases.replaceIfPresent(camera, mine, kept).onComplete(ar -> {
            renewing.remove(camera);
            // failed or lost: the heir marked it ready meanwhile (the next round hands it over), or it was taken
            if (ar.failed() || !ar.result() || !mine.equals(written.get(camera))) return;
            written.put(camera, kept);
            renewedAt.put(camera, began);
            offered.remove(camera);
            LOG.log(Level.INFO, "camera {0}: offer to {1} withdrawn (not ready within {2} ms): it stays here", camera, heir, handoverMs());
        });
    }

    /** Releases what is still held (nothing after a complete hand-over) and leaves the directory. */
    private Future<?> releaseAll() {
        if (timer >= 0) vertx.cancelTimer(timer);
        if (handoverNotices != null) handoverNotices.unregister();
        quorum = false;
        List<Future<?>> releases = new ArrayList<>();
        for (String camera : held.cameras()) {
            Lease mine = Lease.parse(written.get(camera));
            held.remove(camera); // nothing more is published for it from here
            // an offer not yet taken goes to its heir, whose camera may already run; the rest to whoever claims first
            Lease released = offered.containsKey(camera) ? mine.releasedTo(offered.get(camera).heir()) : mine.released();
            releases.add(leases.replaceIfPresent(camera, written.get(camera), released.text()));
            LOG.log(Level.INFO, "camera {0}: released (this node stops)", camera);
        }
        offered.clear();
        written.clear();
        // The directory entry stays, marked leaving (weight 0), until the others prune it once this node is no longer a
        // member: removed now, this node would count as a member of default weight 1 for a moment, and the others
        // would rebalance cameras onto it (its heirs waited a lease for them). Bounded: a map call may wait for a
        // member that died; the leases then expire instead.
        return Future.join(releases).transform(ar -> nodes.put(self.copy().put("weight", 0.0).put("leaving", true)))
                .timeout(3, TimeUnit.SECONDS).recover(e -> Future.succeededFuture());
    }

    /**
     * One round: fence, renew (each lease on its own, so a renewal that waits for a hung member holds up no other),
     * then survey and claim unless the previous survey still waits (reading every lease touches every member).
     */
    private void round() {
        long now = System.nanoTime();
        fence(now);
        List<String> live = members.get();
        if (!quorate(live)) return;
        renewAll(now);
        if (leaving) {
            offerPlanned();
            checkOffers();
            return;
        }
        if (!offered.isEmpty()) checkOffers();
        if (surveying && now - surveyStarted < leaseNanos) return;
        if (surveying) LOG.log(Level.INFO, "ownership survey still waiting after {0} ms: starting another", cluster.leaseMs());
        surveying = true;
        surveyStarted = now;
        survey(live).onComplete(ar -> {
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - now);
            if (surveyStarted == now) surveying = false;
            if (ar.failed()) LOG.log(Level.DEBUG, "ownership survey failed: " + ar.cause());
            // a slow survey delays every claim and rebalance; said, so that a long silence can be traced to it
            if (tookMs > cluster.leaseMs() / 2) LOG.log(Level.INFO, "ownership survey took {0} ms", tookMs);
        });
    }

    /** Stops cameras whose lease was not renewed for a whole lease: another node may take them now. */
    private void fence(long now) {
        for (String camera : held.cameras()) {
            Long at = renewedAt.get(camera);
            if (at != null && now - at >= leaseNanos) stopCamera(camera, "lease not renewed for " + cluster.leaseMs() + " ms");
        }
    }

    /** Enough members in sight to run cameras; otherwise stops every camera here. */
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
        for (String camera : held.cameras()) stopCamera(camera, "fewer than minSize members");
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
                    Future<Void> dropped = dropRemoved(listing.present());
                    Future<Void> healed = catalog.heal(listing).compose(v -> keepOwnEntry(directory));
                    Map<String, String> leaseTexts = new HashMap<>();
                    Map<String, SealedMap.Stored<String>> suspect = new HashMap<>();
                    Set<String> unknownBefore = judge(stored, leaseTexts, suspect);
                    trust.retain(listing.present());
                    // this node's own weight is the one it knows, whatever a stranger did to its entry meanwhile
                    Map<String, JsonObject> announced = new HashMap<>(directory);
                    announced.put(held.node(), self);
                    Map<String, Double> weights = NodeDirectory.weights(live, announced);
                    int share = FairShare.of(cameras.size(), weights, held.node());
                    prepareStandby(cameras, leaseTexts, suspect.keySet(), live);
                    List<Claim> claims = claimable(cameras, leaseTexts, suspect, unknownBefore, live, System.nanoTime());
                    return Future.join(dropped, healed).<Void>mapEmpty().recover(e -> Future.succeededFuture())
                            .compose(v -> claim(claims, share))
                            .compose(v -> rebalance(cameras.size(), leaseTexts, live, weights, claims.isEmpty(), directory))
                            .compose(v -> nodes.prune(live, directory));
                });
    }

    /**
     * Sorts the stored leases into those believed ({@code believed}: camera to text) and the suspect ones (invalid, or
     * an older epoch than this node saw: put back by someone); returns the cameras this node had seen no lease of
     * before this survey.
     */
    private Set<String> judge(Map<String, SealedMap.Stored<String>> stored, Map<String, String> believed,
                              Map<String, SealedMap.Stored<String>> suspect) {
        Set<String> unknownBefore = new HashSet<>();
        for (Map.Entry<String, SealedMap.Stored<String>> e : stored.entrySet()) {
            String camera = e.getKey();
            SealedMap.Stored<String> s = e.getValue();
            if (trust.newest(camera) == null) unknownBefore.add(camera);
            if (!s.valid()) {
                suspect.put(camera, s);
                continue;
            }
            Lease l = Lease.parse(s.value());
            if (trust.replayed(camera, l)) {
                invalid.value(Lease.MAP, camera, "an older lease (epoch " + l.epoch() + ", this node saw epoch "
                        + trust.newest(camera).epoch() + "): put back by someone, not written by a node", s.sealed());
                suspect.put(camera, s);
                continue;
            }
            trust.saw(camera, l);
            believed.put(camera, s.value());
        }
        return unknownBefore;
    }

    /**
     * Writes this node's directory entry back when it is missing or not what this node wrote (deleted or overwritten
     * by a stranger): the others would count this node out of the shares and hand it nothing.
     */
    private Future<Void> keepOwnEntry(Map<String, JsonObject> directory) {
        if (leaving || self.equals(directory.get(held.node()))) return Future.succeededFuture();
        if (!ownEntryRewritten) {
            // once: a stranger writing over it every round would otherwise fill the log
            LOG.log(Level.WARNING, "cluster: this node''s directory entry was {0}: written again (said once; see "
                    + "argus_cluster_invalid_values_total)", directory.containsKey(held.node()) ? "changed" : "missing or invalid");
            ownEntryRewritten = true;
        }
        return nodes.put(self);
    }

    /**
     * Renews every held lease whose previous renewal has completed; a lease someone else replaced is lost and its
     * camera stops here. A renewal that fails or waits changes nothing: {@link #fence} stops the camera in time.
     */
    private void renewAll(long now) {
        long expires = System.currentTimeMillis() + cluster.leaseMs();
        for (String camera : held.cameras()) {
            // an offered lease is not renewed: its text must stay what the heir read, for the heir's compare-and-set
            if (offered.containsKey(camera) || !renewing.add(camera)) continue;
            String old = written.get(camera);
            String next = Lease.parse(old).renewed(expires).text();
            leases.replaceIfPresent(camera, old, next).onComplete(ar -> {
                renewing.remove(camera);
                if (ar.failed() || !old.equals(written.get(camera))) return; // failed, or stopped meanwhile
                if (ar.result()) {
                    written.put(camera, next);
                    renewedAt.put(camera, now);
                } else {
                    renewalRefused(camera, old, next);
                }
            });
        }
    }

    /**
     * A renewal's compare-and-set failed: the stored lease is not the one this node wrote. Only another node's claim (a
     * newer sealed lease) stops the camera here; a lease deleted, garbled or put back from an older epoch is rewritten.
     */
    private void renewalRefused(String camera, String old, String next) {
        leases.read(camera).onSuccess(found -> {
            if (!old.equals(written.get(camera))) return; // stopped or rewritten meanwhile
            Lease mine = Lease.parse(old);
            if (found != null && found.valid() && takenFrom(Lease.parse(found.value()), mine)) {
                stopCamera(camera, "lease taken by another node");
                return;
            }
            rewrite(camera, found, next, "renewing").onSuccess(ok -> {
                if (ok && old.equals(written.get(camera))) written.put(camera, next);
            });
        });
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

    /** Cameras removed from the list stop here; their leases are released (keeping the epoch, should the id return). */
    private Future<Void> dropRemoved(Set<String> listedNow) {
        List<Future<?>> releases = new ArrayList<>();
        for (String camera : held.cameras()) {
            if (listedNow.contains(camera)) continue;
            String mine = written.get(camera);
            stopCamera(camera, "removed from the cluster's camera list");
            releases.add(leases.replaceIfPresent(camera, mine, Lease.parse(mine).released().text()));
        }
        return Future.join(releases).mapEmpty();
    }

    /**
     * A camera this node may claim: what is stored as its lease (null: nothing), that lease when believed (null:
     * none, or suspect), and the camera's definition.
     */
    private record Claim(String camera, SealedMap.Stored<String> found, String believed, JsonObject definition) {}

    private List<Claim> claimable(Map<String, JsonObject> cameras, Map<String, String> leaseTexts,
                                  Map<String, SealedMap.Stored<String>> suspect, Set<String> unknownBefore, List<String> live, long now) {
        List<Claim> out = new ArrayList<>();
        String me = held.node();
        for (Map.Entry<String, String> e : leaseTexts.entrySet()) {
            // every lease is watched each round, so that expiry is measured from the last change seen
            boolean expired = watch.expired(e.getKey(), e.getValue(), now);
            if (!cameras.containsKey(e.getKey()) || held.get(e.getKey()) != null || changing.contains(e.getKey())) continue;
            // a lease this node sees for the first time may be an old one put back: it is claimed no sooner than the
            // next survey, when its holder (if any) has rewritten it
            if (unknownBefore.contains(e.getKey())) continue;
            Lease l = Lease.parse(e.getValue());
            boolean leftToAnother = !l.heir().isEmpty() && !l.heir().equals(me) && live.contains(l.heir());
            if ((l.free() && !leftToAnother) || (!l.free() && !live.contains(l.owner())) || expired) {
                out.add(new Claim(e.getKey(), null, e.getValue(), cameras.get(e.getKey()).getJsonObject("definition")));
            }
        }
        for (Map.Entry<String, SealedMap.Stored<String>> e : suspect.entrySet()) {
            // watched by their stored form: a holder rewrites its lease within a round, so one that stays the same for
            // a whole lease has none
            SealedMap.Stored<String> s = e.getValue();
            boolean expired = watch.expired(e.getKey(), "suspect " + Objects.hashCode(s.sealed()), now);
            if (!cameras.containsKey(e.getKey()) || held.get(e.getKey()) != null || changing.contains(e.getKey())) continue;
            if (expired || trust.claimableAtOnce(e.getKey(), live, me)) {
                out.add(new Claim(e.getKey(), s, null, cameras.get(e.getKey()).getJsonObject("definition")));
            }
        }
        for (Map.Entry<String, JsonObject> c : cameras.entrySet()) {
            String camera = c.getKey();
            if (leaseTexts.containsKey(camera) || suspect.containsKey(camera)) continue;
            // no lease: never leased (claimed at once), or deleted by someone while its holder lives (the holder puts
            // it back within a round; claimed only if it stays away a whole lease)
            boolean deletedFromLiving = trust.newest(camera) != null && !trust.claimableAtOnce(camera, live, me);
            boolean expired = watch.expired(camera, "absent", now);
            if (held.get(camera) != null || changing.contains(camera) || (deletedFromLiving && !expired)) continue;
            out.add(new Claim(camera, null, null, c.getValue().getJsonObject("definition")));
        }
        Set<String> watched = new HashSet<>(leaseTexts.keySet());
        watched.addAll(suspect.keySet());
        watched.addAll(cameras.keySet());
        watch.retain(watched);
        unrunnableUntil.values().removeIf(until -> until < now);
        out.removeIf(c -> unrunnableUntil.containsKey(c.camera()) || !runnableHere(c.camera(), c.definition()));
        // Each node tries the cameras in its own order, so nodes starting together rarely race for the same one.
        String node = held.node();
        out.sort(Comparator.comparingInt(c -> (c.camera() + "@" + node).hashCode()));
        return out;
    }

    /** The camera's model exists here and its source is valid here (a video file on this node's disk, say). */
    private boolean runnableHere(String camera, JsonObject definition) {
        try {
            List<String> served = config.modelIds().stream().filter(m -> !refusedModels.containsKey(m)).toList();
            CameraConfig cam = CameraConfig.fromJson(definition, config.modelIds(), config.file().toAbsolutePath().getParent());
            if (!served.contains(cam.model())) {
                LOG.log(Level.DEBUG, "camera {0} cannot run on this node: {1}", camera, refusedModels.get(cam.model()));
                unrunnableUntil.put(camera, System.nanoTime() + RETRY_UNRUNNABLE_NANOS);
                return false;
            }
            return true;
        } catch (ConfigException | IllegalArgumentException | ClassCastException e) {
            LOG.log(Level.DEBUG, "camera {0} cannot run on this node: {1}", camera, e.getMessage());
            unrunnableUntil.put(camera, System.nanoTime() + RETRY_UNRUNNABLE_NANOS);
            return false;
        }
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
    private Future<Void> claim(List<Claim> claims, int share) {
        Future<Void> chain = Future.succeededFuture();
        for (Claim c : claims) {
            chain = chain.compose(v -> held.size() >= share || !enoughMembers() ? Future.succeededFuture() : claimOne(c));
        }
        return chain;
    }

    private boolean enoughMembers() { return members.get().size() >= cluster.minSize(); }

    private Future<Void> claimOne(Claim c) {
        long began = System.nanoTime();
        long expires = System.currentTimeMillis() + cluster.leaseMs();
        String node = held.node();
        // a believed lease is claimed after it; one that cannot be believed (or none) after every epoch this node saw
        Lease next = c.believed() != null ? Lease.parse(c.believed()).claimedBy(node, expires)
                : new Lease(node, trust.nextEpoch(c.camera()), expires, "");
        String text = next.text();
        Future<Boolean> won;
        if (c.believed() != null) won = leases.replaceIfPresent(c.camera(), c.believed(), text);
        else if (c.found() != null) won = leases.replace(c.camera(), c.found(), text);
        else won = leases.putIfAbsentStored(c.camera(), text).map(previous -> previous == null);
        return won.compose(ok -> {
            if (!ok) return Future.succeededFuture(); // another node was faster
            if (!enoughMembers()) {
                // the compare-and-set waited for an unreachable member and landed after the split (see claim): give
                // the lease back on this side and start nothing
                leases.replaceIfPresent(c.camera(), text, next.released().text());
                return Future.succeededFuture();
            }
            written.put(c.camera(), text);
            renewedAt.put(c.camera(), began);
            trust.saw(c.camera(), next);
            held.put(c.camera(), next);
            if (standby.remove(c.camera())) {
                // handed over warm: the camera already runs here; from now on its detections are published
                LOG.log(Level.INFO, "camera {0}: taken over warm, publishing (epoch {1})", c.camera(), Long.toString(next.epoch()));
            } else {
                startCamera(c.camera(), c.definition(), next);
            }
            return Future.succeededFuture();
        });
    }

    /**
     * Hand-overs offered to this node: starts each offered camera here without publishing (no lease in
     * {@link HeldLeases}), then marks the offer ready; stops standby cameras whose offer was withdrawn (the owner died:
     * the lease is then claimed the ordinary way, by this node or another).
     */
    private void prepareStandby(Map<String, JsonObject> cameras, Map<String, String> leaseTexts, Set<String> suspect, List<String> live) {
        String me = held.node();
        for (Map.Entry<String, String> e : leaseTexts.entrySet()) {
            String camera = e.getKey();
            Lease l = Lease.parse(e.getValue());
            if (!l.offered() || !me.equals(l.heir()) || !live.contains(l.owner()) || !cameras.containsKey(camera)) continue;
            startStandby(camera, e.getValue(), cameras.get(camera).getJsonObject("definition"));
        }
        for (String camera : Set.copyOf(standby)) {
            // a suspect lease is no withdrawal: its owner rewrites it within a round
            if (changing.contains(camera) || suspect.contains(camera)) continue;
            String t = leaseTexts.get(camera);
            Lease l = t != null ? Lease.parse(t) : null;
            boolean stillOffered = l != null && me.equals(l.heir())
                    && (((l.offered() || l.heirReady()) && live.contains(l.owner())) || l.free());
            if (!stillOffered && held.get(camera) == null) {
                standby.remove(camera);
                stopCamera(camera, "hand-over withdrawn");
            }
        }
    }

    /** Starts an offered camera here without publishing (no lease in {@link HeldLeases}), then marks the offer ready. */
    private void startStandby(String camera, String offerText, JsonObject definition) {
        if (held.get(camera) != null || standby.contains(camera) || changing.contains(camera) || leaving) return;
        if (unrunnableUntil.containsKey(camera) || !runnableHere(camera, definition)) return;
        Lease l = Lease.parse(offerText);
        standby.add(camera);
        changing.add(camera);
        vertx.eventBus().<JsonObject>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "add").put("camera", definition))
                .onComplete(ar -> {
                    changing.remove(camera);
                    if (ar.failed()) {
                        standby.remove(camera);
                        LOG.log(Level.WARNING, "camera {0}: offered to this node but cannot run here: {1}", camera, ar.cause().getMessage());
                        return;
                    }
                    LOG.log(Level.INFO, "camera {0}: running on standby for a hand-over (epoch {1} ends)", camera, Long.toString(l.epoch()));
                    pauseIfPaused(camera).onComplete(x -> leases.replaceIfPresent(camera, offerText, l.ready().text()));
                });
    }

    /**
     * Another node told this one about {@code camera}: it offered it here (start it on standby), or released it here
     * after the standby camera was ready, or released it plainly to this node: claim it now, by one compare-and-set.
     * Without the notice this node learnt of it only from its next survey, which reads whole maps; on a node that has
     * just joined such a read can wait (Hazelcast migrating partitions to it, most likely), a new survey starts only a
     * lease later, and a camera rebalanced onto a restarted node was silent for 10.4-10.5 s in 3 of 8 restarts of the
     * 2026-11-28 cluster soak. The survey still does all of this should a notice be lost.
     */
    private void onHandoverNotice(String camera) {
        if (camera == null || held.get(camera) != null || changing.contains(camera) || leaving || !enoughMembers()) return;
        Future.all(leases.get(camera), catalog.get(camera)).onSuccess(all -> {
            String text = all.resultAt(0);
            JsonObject entry = all.resultAt(1);
            if (text == null || entry == null || held.get(camera) != null || changing.contains(camera) || leaving) return;
            Lease l = Lease.parse(text);
            String me = held.node();
            if (!me.equals(l.heir())) return;
            JsonObject definition = entry.getJsonObject("definition");
            if (l.offered()) {
                if (members.get().contains(l.owner())) startStandby(camera, text, definition);
            } else if (l.free()) {
                if (standby.contains(camera)) {
                    claimOne(new Claim(camera, null, text, null));
                } else {
                    Claim c = new Claim(camera, null, text, definition);
                    if (unrunnableUntil.containsKey(camera) || !runnableHere(camera, definition)) return;
                    LOG.log(Level.INFO, "camera {0}: released to this node, claiming", camera);
                    claimOne(c);
                }
            }
        });
    }

    /**
     * Hands one camera over when this node holds more than its share rounded down and some node holds less than its
     * own: one at a time, and only once no camera is waiting for an owner, so a joining node takes over gradually.
     * The hand-over is warm, as when a node stops: offered to the heir, started there on standby, stopped here and
     * released to the heir only once it runs there ({@link #checkOffers}); an heir not ready within
     * {@link #handoverMs} has its offer withdrawn and the camera stays here. Released cold instead (stopped at once),
     * a camera waited for its heir: 5.4 and 12.6 s of silence in the 2026-11-25 cluster soak while restarted heirs
     * were still loading models (since then the heir must have written its directory entry), and still 10.4-10.5 s in
     * 3 of 8 rebalances on 2026-11-28 and 1 of 5 in a shorter run after the heir was told directly (docs/reliability.md).
     */
    private Future<Void> rebalance(int cameras, Map<String, String> leaseTexts, List<String> live,
                                   Map<String, Double> weights, boolean noneWaiting, Map<String, JsonObject> directory) {
        if (!noneWaiting || held.size() <= FairShare.floor(cameras, weights, held.node()) || !changing.isEmpty() || !offered.isEmpty()) {
            return Future.succeededFuture();
        }
        Map<String, Integer> owned = new HashMap<>();
        for (String t : leaseTexts.values()) {
            Lease l = Lease.parse(t);
            if (!l.free() && live.contains(l.owner())) owned.merge(l.owner(), 1, Integer::sum);
        }
        // the heir: the member furthest below its share (ties: the smallest id, so every node picks the same)
        String heir = null;
        int deficit = 0;
        for (String m : new java.util.TreeSet<>(live)) {
            int d = FairShare.floor(cameras, weights, m) - owned.getOrDefault(m, 0);
            if (!m.equals(held.node()) && directory.containsKey(m) && d > deficit) {
                heir = m;
                deficit = d;
            }
        }
        if (heir == null) return Future.succeededFuture();
        String camera = held.cameras().stream().sorted().reduce((a, b) -> b).orElseThrow();
        // warm, as a stopping node hands over: the camera goes on publishing here until it runs on the heir
        return offer(camera, heir, "rebalancing: this node holds " + held.size() + " of " + cameras + " cameras, node " + heir + " fewer than its share");
    }

    private void startCamera(String camera, JsonObject definition, Lease lease) {
        changing.add(camera);
        long began = System.nanoTime();
        vertx.eventBus().<JsonObject>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "add").put("camera", definition))
                .onComplete(ar -> {
                    changing.remove(camera);
                    if (ar.succeeded()) {
                        // the time from the claim, so that a camera's silence can be told apart from a slow claim
                        LOG.log(Level.INFO, "camera {0}: running on this node (epoch {1}, started in {2} ms)", camera,
                                Long.toString(lease.epoch()), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
                        if (held.get(camera) == null) stopCamera(camera, "lease lost while starting");
                        else pauseIfPaused(camera);
                        return;
                    }
                    LOG.log(Level.WARNING, "camera {0}: cannot run on this node: {1}", camera, ar.cause().getMessage());
                    unrunnableUntil.put(camera, System.nanoTime() + RETRY_UNRUNNABLE_NANOS);
                    String mine = written.remove(camera);
                    held.remove(camera);
                    renewedAt.remove(camera);
                    if (mine != null) leases.replaceIfPresent(camera, mine, Lease.parse(mine).released().text());
                });
    }

    /** A camera an operator paused stays paused wherever it runs ({@link CameraStates}). */
    private Future<Void> pauseIfPaused(String camera) {
        return states.paused(camera).compose(paused -> {
            if (!paused) return Future.<Void>succeededFuture();
            LOG.log(Level.INFO, "camera {0}: paused, as it was on its previous node", camera);
            return vertx.eventBus().request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "pause").put("id", camera)).<Void>mapEmpty();
        }).recover(e -> {
            LOG.log(Level.WARNING, "camera {0}: its paused state could not be restored: {1}", camera, e.getMessage());
            return Future.succeededFuture();
        });
    }

    /** Stops publishing for {@code camera} at once, then stops the camera verticle. */
    private void stopCamera(String camera, String reason) {
        boolean wasHeld = held.get(camera) != null;
        rewriteLogged.remove(camera);
        held.remove(camera);
        written.remove(camera);
        renewedAt.remove(camera);
        if (changing.contains(camera)) return; // still starting: its start completion sees the lease gone and stops it
        if (wasHeld) LOG.log(Level.INFO, "camera {0}: stopped on this node ({1})", camera, reason);
        changing.add(camera);
        vertx.eventBus().request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "remove").put("id", camera))
                .onComplete(ar -> changing.remove(camera));
    }
}
