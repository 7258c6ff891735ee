package io.argus.tools.cluster;

import io.argus.tools.pipeline.PipelineBenchmark;
import io.argus.tools.cluster.DetectionTap.Received;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * {@code argus bench cluster}: N Argus nodes as separate processes on this machine (loopback), C file cameras paced
 * in real time, a WebSocket client on every node, and then what an operator fears:
 *
 * <ol>
 *   <li>steady state: messages per second cluster-wide, capture-to-client latency for cameras of the client's own node
 *       and of other nodes (the added cost of crossing the cluster);
 *   <li>{@code --kills} rounds of kill -9 of one node (round robin), each measured from the signal to the first
 *       detection of every moved camera at a client on a surviving node; the spread right after (no survivor above
 *       its fair share + 1); then the node is started again and the cameras rebalance;
 *   <li>{@code --handovers} rounds of SIGTERM: the gap of each moved camera at a client (its last message before the new
 *       owner's first) and the time from the signal;
 *   <li>over the whole run, on every client: {@link PublisherCheck} (100 ms samples; epochs).
 * </ol>
 *
 * The nodes log to {@code <work>/node-N.log}; per-round figures go to {@code <work>/rounds.csv}.
 */
public final class ClusterBenchmark {
    public record Options(int nodes, int cameras, int kills, int handovers, double steadySeconds, int width, int height,
                          int fps, Path cfg, int size, double threshold, int threads, long heartbeatMs,
                          long maxNoHeartbeatMs, long leaseMs, long renewMs, int minSize, Path work, Path cacheDir,
                          long failoverLimitMs, long handoverGapLimitMs) {}

    /** What one kill -9 or SIGTERM round measured. */
    record Round(String kind, int index, String node, int moved, double[] perCameraMs, double worstMs, int largestShare,
                 int fairShare, double gapMs, double restartMs, double rebalanceMs, String problem) {}

    private final Options o;
    private final PrintStream out;
    private final List<NodeProcess> nodes = new ArrayList<>();
    /** Every tap ever connected (a restarted node gets a new one; the old one's messages still count in the check). */
    private final List<DetectionTap> allTaps = new ArrayList<>();
    private final Map<NodeProcess, DetectionTap> taps = new HashMap<>();
    private final List<Round> rounds = new ArrayList<>();

    public ClusterBenchmark(Options options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    /** Runs everything; 0 when every limit held, 1 when one did not (the output says which). */
    public int run() throws Exception {
        if (o.nodes() < 2) throw new IllegalArgumentException("--nodes: a cluster benchmark needs at least 2, found " + o.nodes());
        if (o.cameras() < 1) throw new IllegalArgumentException("--cameras: at least 1, found " + o.cameras());
        if (o.minSize() > o.nodes() - 1 && o.kills() + o.handovers() > 0) {
            throw new IllegalArgumentException("--min-size " + o.minSize() + " with " + o.nodes() + " nodes: the survivors of a kill ("
                    + (o.nodes() - 1) + ") would run nothing");
        }
        Files.createDirectories(o.work());
        Path video = new PipelineBenchmark(new PipelineBenchmark.Options(o.width(), o.height(), o.fps(), o.cfg(), o.size(),
                o.threshold(), 4, 10, 0, 0, 0, o.cacheDir()), out).video();
        out.printf(Locale.ROOT, "cluster bench: %d nodes, %d cameras (%s, %dx%d @ %d fps, looped in real time), model %s at %d, "
                        + "%d oneDNN thread(s) per node; heartbeat %d ms, removed after %d ms, lease %d ms, renew %d ms, minSize %d; %d CPU cores; logs in %s%n",
                o.nodes(), o.cameras(), video.getFileName(), o.width(), o.height(), o.fps(), o.cfg().getFileName(), o.size(), o.threads(),
                o.heartbeatMs(), o.maxNoHeartbeatMs(), o.leaseMs(), o.renewMs(), o.minSize(), Runtime.getRuntime().availableProcessors(), o.work());
        int[] hazelcastPorts = new int[o.nodes()];
        for (int i = 0; i < o.nodes(); i++) hazelcastPorts[i] = freePort();
        List<String> members = new ArrayList<>();
        for (int port : hazelcastPorts) members.add("127.0.0.1:" + port);
        JsonArray cameras = new JsonArray();
        for (int i = 1; i <= o.cameras(); i++) {
            cameras.add(new JsonObject().put("id", "cam" + i).put("url", video.toString()).put("loop", true).put("realtime", true));
        }
        for (int i = 0; i < o.nodes(); i++) {
            String name = "node-" + (i + 1);
            int http = freePort();
            Path config = o.work().resolve(name + ".yaml");
            Files.writeString(config, nodeConfig(http, hazelcastPorts[i], members, cameras).encodePrettily());
            Path log = o.work().resolve(name + ".log");
            Files.deleteIfExists(log);
            nodes.add(new NodeProcess(name, http, hazelcastPorts[i], config, log, o.threads()));
        }
        // interrupted (Ctrl-C, SIGTERM): no node outlives the benchmark
        Thread killNodes = new Thread(() -> nodes.forEach(n -> {
            try {
                if (n.alive()) n.kill();
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }), "cluster-bench-stop");
        Runtime.getRuntime().addShutdownHook(killNodes);
        try {
            return measure();
        } finally {
            Runtime.getRuntime().removeShutdownHook(killNodes);
            for (DetectionTap t : allTaps) t.close();
            for (NodeProcess n : nodes) n.close();
        }
    }

    private int measure() throws Exception {
        long t0 = System.currentTimeMillis();
        for (NodeProcess n : nodes) n.start();
        for (NodeProcess n : nodes) await(n::ready, 300_000, n.name + " ready", n);
        out.printf(Locale.ROOT, "start: %d nodes ready after %.1f s%n", nodes.size(), (System.currentTimeMillis() - t0) / 1000.0);
        long placed = System.currentTimeMillis();
        awaitBalanced(120_000);
        out.printf(Locale.ROOT, "start: every camera owned once, %s, %.1f s later%n", shares(nodes.get(0)), (System.currentTimeMillis() - placed) / 1000.0);
        for (NodeProcess n : nodes) connectTap(n);

        steady();
        for (int k = 0; k < o.kills(); k++) round("kill -9", k, nodes.get(k % nodes.size()));
        for (int h = 0; h < o.handovers(); h++) round("SIGTERM", h, nodes.get(h % nodes.size()));

        writeCsv();
        return summary();
    }

    // ------------------------------------------------------------------------------------------------------------
    // steady state
    // ------------------------------------------------------------------------------------------------------------

    private void steady() throws Exception {
        double from = System.currentTimeMillis() + 3000; // a few seconds for the clients' first messages to settle
        Thread.sleep((long) (3000 + o.steadySeconds() * 1000));
        double to = System.currentTimeMillis();
        Map<String, String> idToName = new HashMap<>();
        for (NodeProcess n : nodes) idToName.put(n.id(), n.name);
        List<Double> local = new ArrayList<>();
        List<Double> cross = new ArrayList<>();
        long delivered = 0;
        Set<String> distinct = new HashSet<>();
        for (NodeProcess n : nodes) {
            String self = n.id();
            for (Received r : taps.get(n).received()) {
                if (r.atMs() < from || r.atMs() >= to) continue;
                delivered++;
                distinct.add(r.camera() + "/" + r.node() + "/" + r.frame());
                (self.equals(r.node()) ? local : cross).add(r.latencyMs());
            }
        }
        double seconds = (to - from) / 1000;
        out.printf(Locale.ROOT, "steady %.0f s: %.1f messages/s published cluster-wide (%.1f per camera), %.1f/s delivered to the %d clients%n",
                seconds, distinct.size() / seconds, distinct.size() / seconds / o.cameras(), delivered / seconds, nodes.size());
        out.printf(Locale.ROOT, "steady: capture -> WebSocket, camera on the client's node: p50 %.1f ms, p99 %.1f ms (%d messages); "
                        + "on another node: p50 %.1f ms, p99 %.1f ms (%d messages); added by crossing the cluster: p50 %+.1f ms, p99 %+.1f ms%n",
                pct(local, 50), pct(local, 99), local.size(), pct(cross, 50), pct(cross, 99), cross.size(),
                pct(cross, 50) - pct(local, 50), pct(cross, 99) - pct(local, 99));
    }

    // ------------------------------------------------------------------------------------------------------------
    // kill -9 and SIGTERM rounds
    // ------------------------------------------------------------------------------------------------------------

    private void round(String kind, int index, NodeProcess victim) throws Exception {
        boolean kill = kind.startsWith("kill");
        awaitBalanced(120_000);
        NodeProcess observer = nodes.stream().filter(n -> n != victim).findFirst().orElseThrow();
        DetectionTap tap = taps.get(observer);
        String victimId = victim.id();
        Set<String> moved = camerasOf(observer, victimId);
        // the victim's cameras are streaming from it right now (the client saw each of them within the last 2 s)
        await(() -> moved.stream().allMatch(c -> lastFrom(tap, c, victimId, System.currentTimeMillis() - 2000) != null), 20_000,
                victim.name + "'s cameras " + moved + " streaming from it", victim, observer);
        long signalAt = System.currentTimeMillis();
        if (kill) victim.kill();
        else victim.terminate();
        DetectionTap oldTap = taps.remove(victim);
        String problem = null;
        boolean back = awaitQuietly(() -> moved.stream().allMatch(c -> firstNotFrom(tap, c, victimId, signalAt) != null), 60_000);
        double[] per = new double[moved.size()];
        double worst = 0;
        double gap = 0;
        int i = 0;
        for (String c : moved) {
            Received first = firstNotFrom(tap, c, victimId, signalAt);
            per[i] = first != null ? first.atMs() - signalAt : Double.NaN;
            worst = Math.max(worst, first != null ? per[i] : Double.POSITIVE_INFINITY);
            if (first != null) {
                Received last = lastBefore(tap, c, first.atMs());
                gap = Math.max(gap, first.atMs() - (last != null ? last.atMs() : signalAt));
            }
            i++;
        }
        if (!back) problem = "cameras not back within 60 s: " + moved.stream().filter(c -> firstNotFrom(tap, c, victimId, signalAt) == null).toList();
        // the spread right after the failover: no survivor above its fair share + 1
        int survivors = nodes.size() - 1;
        int fair = (o.cameras() + survivors - 1) / survivors;
        int largest = 0;
        Map<String, Integer> counts = ownerCounts(observer);
        for (var e : counts.entrySet()) if (!e.getKey().equals(victimId)) largest = Math.max(largest, e.getValue());
        if (!kill && !victim.waitForExit(30)) problem = (problem == null ? "" : problem + "; ") + victim.name + " did not exit within 30 s of SIGTERM";
        if (oldTap != null) oldTap.close();
        // the node comes back; the cameras rebalance onto it
        long restartAt = System.currentTimeMillis();
        victim.start();
        await(victim::ready, 300_000, victim.name + " ready again", victim);
        double restart = System.currentTimeMillis() - restartAt;
        connectTap(victim);
        long rebalanceFrom = System.currentTimeMillis();
        awaitBalanced(120_000);
        double rebalance = System.currentTimeMillis() - rebalanceFrom;
        Round r = new Round(kind, index + 1, victim.name, moved.size(), per, worst, largest, fair, gap, restart, rebalance, problem);
        rounds.add(r);
        out.printf(Locale.ROOT, "%s %2d of %s at %s: %d camera(s) moved, streaming again after %s ms (worst %.0f ms)%s; largest survivor share %d (fair %d)%s; "
                        + "restarted, ready in %.1f s, rebalanced %.1f s later%s%n",
                kind, index + 1, victim.name, java.time.LocalTime.ofInstant(java.time.Instant.ofEpochMilli(signalAt), java.time.ZoneId.systemDefault()),
                moved.size(), Arrays.toString(Arrays.stream(per).mapToLong(Math::round).toArray()), worst,
                kill ? "" : String.format(Locale.ROOT, ", gap %.0f ms", gap), largest, fair, largest > fair + 1 ? " ABOVE FAIR + 1" : "",
                restart / 1000, rebalance / 1000, problem != null ? "; PROBLEM: " + problem : "");
    }

    // ------------------------------------------------------------------------------------------------------------
    // summary
    // ------------------------------------------------------------------------------------------------------------

    private int summary() {
        boolean ok = true;
        for (String kind : List.of("kill -9", "SIGTERM")) {
            List<Round> of = rounds.stream().filter(r -> r.kind().equals(kind)).toList();
            if (of.isEmpty()) continue;
            List<Double> perCamera = new ArrayList<>();
            List<Double> worst = new ArrayList<>();
            List<Double> gaps = new ArrayList<>();
            int largest = 0;
            int fair = 0;
            for (Round r : of) {
                for (double v : r.perCameraMs()) perCamera.add(Double.isNaN(v) ? Double.POSITIVE_INFINITY : v);
                worst.add(r.worstMs());
                gaps.add(r.gapMs());
                largest = Math.max(largest, r.largestShare());
                fair = r.fairShare();
            }
            long problems = of.stream().filter(r -> r.problem() != null).count();
            double max = perCamera.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
            if (kind.startsWith("kill")) {
                boolean pass = max <= o.failoverLimitMs() && largest <= fair + 1 && problems == 0;
                ok &= pass;
                out.printf(Locale.ROOT, "failover after kill -9, %d rounds, %d moved cameras: p50 %.0f ms, p90 %.0f ms, max %.0f ms "
                                + "(worst camera per round: median %.0f ms); largest survivor share %d (fair %d): %s (limits: every camera within %d ms, fair + 1)%n",
                        of.size(), perCamera.size(), pct(perCamera, 50), pct(perCamera, 90), max, pct(worst, 50), largest, fair,
                        pass ? "PASS" : "FAIL", o.failoverLimitMs());
            } else {
                double maxGap = gaps.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
                boolean pass = maxGap <= o.handoverGapLimitMs() && problems == 0;
                ok &= pass;
                out.printf(Locale.ROOT, "graceful hand-over (SIGTERM), %d rounds, %d moved cameras: gap p50 %.0f ms, max %.0f ms; from the signal: "
                                + "p50 %.0f ms, max %.0f ms: %s (limit: gap %d ms)%n",
                        of.size(), perCamera.size(), pct(gaps, 50), maxGap, pct(perCamera, 50), max, pass ? "PASS" : "FAIL",
                        o.handoverGapLimitMs());
            }
        }
        PublisherCheck.Result all = PublisherCheck.Result.NONE;
        for (DetectionTap t : allTaps) all = all.plus(PublisherCheck.check(t.received(), 100));
        ok &= all.clean();
        out.printf(Locale.ROOT, "one owner: %d messages at %d clients, %d camera samples of 100 ms, %d with two publishers (hand-overs), "
                        + "%d with overlapping frame times; epochs going back %d, an epoch from two nodes %d, interleaved epochs %d: %s%s%n",
                all.messages(), allTaps.size(), all.samples(), all.handoverSamples(), all.overlappingSamples(), all.epochRegressions(),
                all.epochsFromTwoNodes(), all.interleavedEpochs(), all.clean() ? "PASS" : "FAIL",
                all.firstProblem() != null ? " (first: " + all.firstProblem() + ")" : "");
        return ok ? 0 : 1;
    }

    private void writeCsv() throws IOException {
        StringBuilder sb = new StringBuilder("kind,round,node,moved,per_camera_ms,worst_ms,largest_share,fair_share,gap_ms,restart_ms,rebalance_ms,problem\n");
        for (Round r : rounds) {
            sb.append(String.format(Locale.ROOT, "%s,%d,%s,%d,%s,%.0f,%d,%d,%.0f,%.0f,%.0f,%s%n", r.kind(), r.index(), r.node(), r.moved(),
                    Arrays.stream(r.perCameraMs()).mapToObj(v -> Long.toString(Math.round(v))).reduce((a, b) -> a + " " + b).orElse(""),
                    r.worstMs(), r.largestShare(), r.fairShare(), r.gapMs(), r.restartMs(), r.rebalanceMs(),
                    r.problem() == null ? "" : '"' + r.problem().replace('"', '\'') + '"'));
        }
        Files.writeString(o.work().resolve("rounds.csv"), sb.toString());
    }

    // ------------------------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------------------------

    private JsonObject nodeConfig(int http, int hazelcastPort, List<String> members, JsonArray cameras) {
        Path home = io.argus.pipeline.cli.ProjectPaths.home();
        return new JsonObject()
                .put("http", new JsonObject().put("host", "127.0.0.1").put("port", http))
                .put("models", new JsonArray().add(new JsonObject()
                        .put("id", "bench").put("cfg", o.cfg().toString())
                        .put("names", home.resolve("config/models/coco.names").toString())
                        .put("width", o.size()).put("height", o.size()).put("seed", 1)
                        .put("threshold", o.threshold()).put("maxDetections", 20)
                        .put("maxBatch", 4).put("maxWaitMs", 10)))
                .put("cameras", cameras.copy())
                .put("snapshots", new JsonObject().put("fps", 0))
                .put("cacheDir", o.work().resolve("cache").toString())
                .put("cluster", new JsonObject().put("enabled", true).put("name", "argus-bench-" + ProcessHandle.current().pid())
                        .put("host", "127.0.0.1").put("port", hazelcastPort).put("members", new JsonArray(members))
                        .put("heartbeatIntervalMs", o.heartbeatMs()).put("maxNoHeartbeatMs", o.maxNoHeartbeatMs())
                        .put("leaseMs", o.leaseMs()).put("renewIntervalMs", o.renewMs()).put("minSize", o.minSize()));
    }

    private void connectTap(NodeProcess n) throws Exception {
        DetectionTap t = DetectionTap.connect(n);
        taps.put(n, t);
        allTaps.add(t);
    }

    /** Every camera owned by a live node, each node holding its share rounded down or up, the same on every node. */
    private void awaitBalanced(long timeoutMs) throws Exception {
        int low = o.cameras() / nodes.size();
        int high = (o.cameras() + nodes.size() - 1) / nodes.size();
        String[] last = {""};
        await(() -> {
            try {
                Set<String> ids = new HashSet<>();
                for (NodeProcess n : nodes) ids.add(n.id());
                Map<String, String> agreed = null;
                for (NodeProcess n : nodes) {
                    Map<String, String> owners = owners(n);
                    last[0] = n.name + ": " + owners;
                    if (owners.size() != o.cameras() || !ids.containsAll(owners.values())) return false;
                    if (agreed != null && !agreed.equals(owners)) return false;
                    agreed = owners;
                }
                Map<String, Integer> counts = new HashMap<>();
                for (String id : ids) counts.put(id, 0);
                agreed.values().forEach(v -> counts.merge(v, 1, Integer::sum));
                return counts.values().stream().allMatch(c -> c >= low && c <= high);
            } catch (Exception e) {
                return false;
            }
        }, timeoutMs, "cameras spread " + low + ".." + high + " per node (last: " + last[0] + ")", nodes.toArray(new NodeProcess[0]));
    }

    private static Map<String, String> owners(NodeProcess n) throws Exception {
        Map<String, String> owners = new TreeMap<>();
        for (Object x : new JsonArray(n.get("/api/cameras"))) {
            JsonObject c = (JsonObject) x;
            if (c.getString("owner") != null) owners.put(c.getString("id"), c.getString("owner"));
        }
        return owners;
    }

    private static Map<String, Integer> ownerCounts(NodeProcess n) {
        Map<String, Integer> counts = new HashMap<>();
        try {
            owners(n).values().forEach(v -> counts.merge(v, 1, Integer::sum));
        } catch (Exception e) {
            // not reachable this time: no counts
        }
        return counts;
    }

    private static Set<String> camerasOf(NodeProcess n, String owner) throws Exception {
        Set<String> out = new HashSet<>();
        owners(n).forEach((c, who) -> {
            if (who.equals(owner)) out.add(c);
        });
        return out;
    }

    private static Received firstNotFrom(DetectionTap tap, String camera, String notFrom, double afterMs) {
        for (Received r : tap.received()) {
            if (r.atMs() >= afterMs && r.camera().equals(camera) && !notFrom.equals(r.node())) return r;
        }
        return null;
    }

    private static Received lastFrom(DetectionTap tap, String camera, String from, double afterMs) {
        Received last = null;
        for (Received r : tap.received()) if (r.atMs() >= afterMs && r.camera().equals(camera) && from.equals(r.node())) last = r;
        return last;
    }

    private static Received lastBefore(DetectionTap tap, String camera, double beforeMs) {
        Received last = null;
        for (Received r : tap.received()) if (r.camera().equals(camera) && r.atMs() < beforeMs) last = r;
        return last;
    }

    /** Waits for {@code condition}; fails naming {@code what} (with the watched nodes' logs) on timeout or a node's exit. */
    static void await(BooleanSupplier condition, long timeoutMs, String what, NodeProcess... watch) throws Exception {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (condition.getAsBoolean()) return;
            for (NodeProcess n : watch) {
                if (!n.alive()) throw new IllegalStateException(n.name + " exited while waiting for " + what + "\n" + n.tail(40));
            }
            Thread.sleep(100);
        }
        StringBuilder sb = new StringBuilder("no " + what + " within " + timeoutMs + " ms");
        for (NodeProcess n : watch) sb.append('\n').append(n.tail(20));
        throw new IllegalStateException(sb.toString());
    }

    static boolean awaitQuietly(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    private String shares(NodeProcess n) throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, String> names = new HashMap<>();
        for (NodeProcess x : nodes) names.put(x.id(), x.name);
        owners(n).values().forEach(v -> counts.merge(names.getOrDefault(v, v), 1, Integer::sum));
        return counts.toString();
    }

    /** The p-th percentile (0..100) of {@code values}: the pipeline bench's nearest rank. */
    static double pct(List<Double> values, double p) {
        return PipelineBenchmark.percentile(values.stream().mapToDouble(Double::doubleValue).sorted().toArray(), p / 100);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
