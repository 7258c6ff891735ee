package io.argus.pipeline.cluster;

import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.training.TrainerGate;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Supplier;

/**
 * The node that fine-tunes a model, one in the cluster at a time: a lease in {@value #MAP} (model id to a
 * {@link Lease}), claimed, renewed and fenced as camera leases are ({@link CameraOwnership}): claimed when absent,
 * released, its owner no longer a member, or not renewed for {@code leaseMs}; renewed every {@code renewIntervalMs};
 * given up below {@code minSize} members; released on stop. The trainer asks {@link #elsewhere} before a run and again
 * before it promotes a candidate, so a node that lost the lease meanwhile (it died and came back, a network split)
 * never applies a half-finished fine-tune: the run is discarded and the next one starts on the new trainer node.
 */
public final class TrainerSingleton extends VerticleBase implements TrainerGate {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    static final String MAP = "argus.trainers";

    private final String model;
    private final String node;
    private final ClusterConfig cluster;
    private final Supplier<List<String>> members;
    private final LeaseWatch watch;
    private SealedMap<String> leases;
    /** Which stored leases to believe ({@link LeaseTrust}): a stranger may delete, garble or replay them. */
    private final LeaseTrust trust = new LeaseTrust();
    private long timer = -1;
    private boolean busy;
    /** The lease text this node wrote last, while it holds the lease (event loop). */
    private String written;
    private long renewedAt;
    private volatile String owner;
    private volatile boolean mine;

    public TrainerSingleton(String model, String node, ClusterConfig cluster, Supplier<List<String>> members) {
        this.model = model;
        this.node = node;
        this.cluster = cluster;
        this.members = members;
        this.watch = new LeaseWatch(cluster.leaseMs());
    }

    @Override
    public String elsewhere() {
        if (mine) return null;
        String o = owner;
        return "fine-tunes of model \"" + model + "\" run on one node of the cluster at a time: "
                + (o != null && !o.isEmpty() ? "node " + o : "none yet (one is chosen within a lease round)");
    }

    /** The node that fine-tunes now, as this node last saw it (null: none). */
    public String owner() { return mine ? node : owner; }

    @Override
    public Future<?> start() {
        return ClusterMaps.of(vertx).texts(MAP).onSuccess(m -> {
            leases = m;
            timer = vertx.setPeriodic(1, cluster.renewIntervalMs(), t -> round());
        });
    }

    @Override
    public Future<?> stop() {
        if (timer >= 0) vertx.cancelTimer(timer);
        boolean held = mine;
        mine = false;
        if (!held || written == null) return Future.succeededFuture();
        LOG.log(Level.INFO, "trainer of model {0}: released (this node stops)", model);
        return leases.replaceIfPresent(model, written, Lease.parse(written).released().text()).mapEmpty()
                .timeout(3, java.util.concurrent.TimeUnit.SECONDS).recover(e -> Future.succeededFuture());
    }

    private void round() {
        long now = System.nanoTime();
        if (mine && now - renewedAt >= cluster.leaseMs() * 1_000_000L) lose("not renewed for " + cluster.leaseMs() + " ms");
        List<String> live = members.get();
        if (live.size() < cluster.minSize()) {
            if (mine) lose("fewer than minSize members");
            return;
        }
        if (busy) return;
        busy = true;
        long expires = System.currentTimeMillis() + cluster.leaseMs();
        Future<Void> step;
        if (mine) {
            String next = Lease.parse(written).renewed(expires).text();
            String old = written;
            step = leases.replaceIfPresent(model, old, next).compose(ok -> ok ? Future.succeededFuture(true) : rewrite(old, next))
                    .map(ok -> {
                        if (ok && mine && old.equals(written)) {
                            written = next;
                            renewedAt = now;
                        }
                        return null;
                    });
        } else {
            step = leases.read(model).compose(found -> {
                if (found == null) {
                    // never claimed, or deleted while its holder lives (it puts it back within a round)
                    boolean fromLiving = trust.newest(model) != null && !trust.claimableAtOnce(model, live, node);
                    if (fromLiving && !watch.expired(model, "absent", now)) return Future.succeededFuture();
                    return claim(null, new Lease(node, trust.nextEpoch(model), expires, ""), now);
                }
                Lease l = found.valid() ? Lease.parse(found.value()) : null;
                if (l == null || trust.replayed(model, l)) {
                    // garbage or an older lease put back: claimed only when it stays a whole lease, or its holder is gone
                    boolean expired = watch.expired(model, "suspect " + java.util.Objects.hashCode(found.sealed()), now);
                    if (!expired && !trust.claimableAtOnce(model, live, node)) return Future.succeededFuture();
                    return claim(found, new Lease(node, trust.nextEpoch(model), expires, ""), now);
                }
                trust.saw(model, l);
                owner = l.owner();
                boolean expired = watch.expired(model, found.value(), now);
                if (l.free() || !live.contains(l.owner()) || expired) return claim(found, l.claimedBy(node, expires), now);
                return Future.succeededFuture();
            });
        }
        step.onComplete(ar -> busy = false);
    }

    /**
     * The renewal found another value than this node wrote: only another node's claim (a newer sealed lease) ends
     * this node's turn; a lease deleted, garbled or put back from an older epoch is written again.
     */
    private Future<Boolean> rewrite(String old, String next) {
        return leases.read(model).compose(found -> {
            Lease mine = Lease.parse(old);
            if (found != null && found.valid() && LeaseKeeping.takenFrom(Lease.parse(found.value()), mine)) {
                lose("lease taken by another node");
                return Future.succeededFuture(false);
            }
            Future<Boolean> written = found == null ? leases.putIfAbsentStored(model, next).map(p -> p == null)
                    : leases.replace(model, found, next);
            return written.onSuccess(ok -> {
                if (ok) LOG.log(Level.WARNING, "trainer of model {0}: its lease in the cluster was {1}; rewritten", model,
                        found == null ? "deleted" : !found.valid() ? "not valid (" + found.problem() + ")" : "an older one put back");
            });
        });
    }

    private Future<Void> claim(SealedMap.Stored<String> found, Lease next, long now) {
        String text = next.text();
        Future<Boolean> won = found == null ? leases.putIfAbsentStored(model, text).map(p -> p == null) : leases.replace(model, found, text);
        return won.map(ok -> {
            if (ok) {
                written = text;
                renewedAt = now;
                trust.saw(model, next);
                mine = true;
                owner = node;
                LOG.log(Level.INFO, "trainer of model {0}: this node fine-tunes it (epoch {1})", model, Long.toString(next.epoch()));
            }
            return null;
        });
    }

    private void lose(String why) {
        if (!mine) return;
        mine = false;
        written = null;
        LOG.log(Level.INFO, "trainer of model {0}: no longer on this node ({1})", model, why);
    }
}
