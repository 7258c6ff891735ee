package io.argus.pipeline.cluster;

import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.testing.TestCluster;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One node's camera ownership without Vert.x, for unit tests: its {@link KnownCameras}, {@link LeaseKeeping},
 * {@link Claiming} and {@link HandOver} over a {@link MemoryMap} of leases that the test's nodes share, a
 * {@link FakeControl} supervisor and a clock the test moves ({@link Clock}). Every map call answers at once, so each
 * call of a part runs its whole exchange before it returns.
 */
final class OwnershipParts {
    static final long LEASE_MS = 10_000;
    static final long HANDOVER_MS = 5_000;
    private static final Sealer SEALER = new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "test")).sealer();

    /** A clock the test moves by hand, shared by the test's nodes. */
    static final class Clock implements OwnershipClock {
        long nanos = TimeUnit.SECONDS.toNanos(1_000);
        long millis = 1_700_000_000_000L;

        void advanceMs(long ms) {
            nanos += TimeUnit.MILLISECONDS.toNanos(ms);
            millis += ms;
        }

        @Override
        public long nanoTime() { return nanos; }

        @Override
        public long currentTimeMillis() { return millis; }
    }

    final String node;
    final Clock clock;
    final MemoryMap raw;
    final SealedMap<String> leases;
    final InvalidValues invalid = new InvalidValues(null, ClusterValues.MAPS);
    final HeldLeases held;
    final KnownCameras table;
    final LeaseTrust trust = new LeaseTrust();
    final LeaseWatch watch = new LeaseWatch(LEASE_MS);
    final FakeControl control = new FakeControl();
    final LocalCameras local;
    final LeaseKeeping keeping;
    final Claiming claiming;
    final HandOver handOver;
    /** The notices this node sent: "node camera". */
    final List<String> told = new ArrayList<>();
    /** The cluster's members as this node sees them (the test changes it). */
    List<String> members;
    /** Cameras whose definition does not fit this node (a model it does not serve, say). */
    final Set<String> unfit = new HashSet<>();

    OwnershipParts(String node, MemoryMap raw, Clock clock, List<String> members) {
        this.node = node;
        this.raw = raw;
        this.clock = clock;
        this.members = members;
        this.leases = new SealedMap<>(Lease.MAP, raw, SEALER, ClusterValues.texts(Lease.MAP), invalid);
        this.held = new HeldLeases(node);
        this.table = new KnownCameras(held);
        this.local = new LocalCameras(table, control, leases, clock);
        this.keeping = new LeaseKeeping(table, leases, local, clock, LEASE_MS);
        this.claiming = new Claiming(table, held, leases, trust, watch, local, clock, LEASE_MS, () -> !this.members.isEmpty(),
                definition -> unfit.contains(definition.getString("id")) ? "model m1 is not served here" : null);
        this.handOver = new HandOver(table, held, leases, keeping, claiming, local, clock, LEASE_MS, HANDOVER_MS,
                (to, camera) -> told.add(to + " " + camera), () -> this.members, () -> !this.members.isEmpty());
    }

    /** The camera list of a survey: each id with its definition. */
    static Map<String, JsonObject> cameras(String... ids) {
        Map<String, JsonObject> out = new TreeMap<>();
        for (String id : ids) out.put(id, new JsonObject().put("definition", new JsonObject().put("id", id).put("url", "file:" + id + ".mp4")));
        return out;
    }

    /** What a survey reads of the leases now, as this node judges it. */
    LeaseTrust.Judged judge() {
        var read = leases.readAll();
        if (!read.succeeded()) throw new AssertionError("a memory map answers at once: " + read);
        return trust.judge(read.result(), invalid);
    }

    /** A survey's reading: hand-overs offered here are prepared, and the cameras this node may claim now are found. */
    List<Claiming.Claim> claimable(Map<String, JsonObject> cameras) {
        LeaseTrust.Judged judged = judge();
        handOver.prepareStandby(cameras, judged.believed(), judged.suspect().keySet(), members);
        return claiming.claimable(cameras, judged, members, clock.nanoTime());
    }

    /** One survey: {@link #claimable}, claimed up to {@code share}. */
    List<Claiming.Claim> survey(Map<String, JsonObject> cameras, int share) {
        List<Claiming.Claim> claims = claimable(cameras);
        claiming.claim(claims, share);
        return claims;
    }

    /** The lease of {@code camera} as stored (opened); null when none or not valid. */
    Lease lease(String camera) {
        String text = leases.get(camera).result();
        return text == null ? null : Lease.parse(text);
    }

    CameraPhase phase(String camera) { return table.phase(camera); }

    /** Puts a lease as a node of the cluster would (sealed). */
    void write(String camera, Lease lease) { leases.put(camera, lease.text()); }
}
