package io.argus.tools.cluster;

import io.argus.tools.cluster.DetectionTap.Received;
import io.argus.tools.tracking.TrackingVideo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code argus bench cluster-soak} (docs/reliability.md "Cluster soak"): N nodes as separate processes on this
 * machine, cameras looping the synthetic tracking video with its counting line and the demo model, for hours, with a
 * kill -9 of one node (round robin, restarted at once) every few minutes. What it holds the cluster to:
 *
 * <ul>
 *   <li><b>no camera lost</b>: every camera's longest silence at the clients (one WebSocket client per node, the
 *       union of what they receive) stays within the failover limit, and every camera streams at the end;
 *   <li><b>no counter reset</b>: the line counts in the cluster-wide map ({@code GET /api/counts} on any live node,
 *       every sample) never go down, and keep growing (every camera counts crossings after the last kill);
 *   <li>one owner per camera over the whole run ({@link PublisherCheck}).
 * </ul>
 *
 * Per sample ({@code <work>/samples.csv}): the nodes alive, the cameras owned, each node's RSS and threads, the counts;
 * per kill ({@code <work>/kills.csv}): each moved camera's time to stream again and the node's restart.
 */
public final class ClusterSoak {
    public record Options(int nodes, int cameras, double minutes, double killEveryMinutes, long seed, int threads,
                          double sampleSeconds, long failoverLimitMs, Path work) {}

    /** One kill -9 and what followed. */
    record Kill(int index, String node, double atS, int moved, long worstMs, double restartS, String problem) {}

    /** What the clients together saw of one camera: the last arrival, by which node, the longest silence. */
    private static final class CameraSeen {
        volatile double lastAt = Double.NaN;
        volatile String lastNode;
        double longestGapMs;
        /** During a kill: the first arrival at or after {@code watchFrom} published by a node other than the victim. */
        private String watchVictim;
        private double watchFrom;
        volatile double firstAfterKill = Double.NaN;

        synchronized void watch(String victim, double from) {
            watchVictim = victim;
            watchFrom = from;
            firstAfterKill = Double.NaN;
        }

        synchronized void arrived(Received r) {
            if (watchVictim != null && Double.isNaN(firstAfterKill) && r.atMs() >= watchFrom && !watchVictim.equals(r.node())) {
                firstAfterKill = r.atMs();
            }
            if (!Double.isNaN(lastAt)) longestGapMs = Math.max(longestGapMs, r.atMs() - lastAt);
            if (Double.isNaN(lastAt) || r.atMs() >= lastAt) {
                lastAt = r.atMs();
                lastNode = r.node();
            }
        }
    }

    private final Options o;
    private final PrintStream out;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<DetectionTap> allTaps = new ArrayList<>();
    private final Map<NodeProcess, DetectionTap> taps = new HashMap<>();
    private final Map<String, CameraSeen> seen = new ConcurrentHashMap<>();
    private final List<Kill> kills = new ArrayList<>();
    /** Highest value seen of each count (camera / line / class / in|out), and every time one went down. */
    private final Map<String, Long> highest = new TreeMap<>();
    private final List<String> decreases = new ArrayList<>();
    private final Map<String, Long> firstCounts = new TreeMap<>();
    private final Map<String, Long> countsAtLastKill = new TreeMap<>();
    private Map<String, Long> lastCounts = Map.of();
    private long t0;

    public ClusterSoak(Options options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    /** Runs the soak; 0 when everything held, 1 when something did not (the output says what). */
    public int run() throws Exception {
        if (o.nodes() < 3) throw new IllegalArgumentException("--nodes: the soak kills one node at a time and keeps a majority: at least 3, found " + o.nodes());
        if (o.cameras() < 1) throw new IllegalArgumentException("--cameras: at least 1, found " + o.cameras());
        if (o.killEveryMinutes() <= 0) throw new IllegalArgumentException("--kill-every-minutes: more than 0, found " + o.killEveryMinutes());
        Files.createDirectories(o.work());
        TrackingVideo script = TrackingVideo.of(o.seed());
        Path video = script.write(o.work().resolve("video"));
        JsonObject line = script.sceneJson().getJsonArray("lines").getJsonObject(0);
        long truthPerLoop = sum(line.getJsonObject("in")) + sum(line.getJsonObject("out"));
        double loopSeconds = script.frames() / (double) TrackingVideo.FPS;

        int[] hazelcastPorts = new int[o.nodes()];
        for (int i = 0; i < o.nodes(); i++) hazelcastPorts[i] = ClusterBenchmark.freePort();
        List<String> members = new ArrayList<>();
        for (int port : hazelcastPorts) members.add("127.0.0.1:" + port);
        JsonArray cameras = new JsonArray();
        for (int i = 1; i <= o.cameras(); i++) {
            cameras.add(new JsonObject().put("id", "cam" + i).put("url", video.toString()).put("loop", true).put("realtime", true)
                    .put("anchor", TrackingVideo.ANCHOR)
                    .put("lines", new JsonArray().add(new JsonObject().put("id", line.getString("id"))
                            .put("from", line.getJsonArray("from")).put("to", line.getJsonArray("to")))));
            seen.put("cam" + i, new CameraSeen());
        }
        for (int i = 0; i < o.nodes(); i++) {
            String name = "node-" + (i + 1);
            Path config = o.work().resolve(name + ".yaml");
            Files.writeString(config, nodeConfig(ClusterBenchmark.freePort(), hazelcastPorts[i], members, cameras).encodePrettily());
            Path log = o.work().resolve(name + ".log");
            Files.deleteIfExists(log);
            nodes.add(new NodeProcess(name, portOf(config), hazelcastPorts[i], config, log, o.threads()));
        }
        out.printf(Locale.ROOT, "cluster soak: %d nodes, %d cameras looping the tracking video (seed %d, %d frames, %.1f s a loop, %d true crossings a loop), "
                        + "demo model, %d oneDNN thread(s) per node; %.0f min, kill -9 every %.1f min (round robin, restarted at once); %d CPU cores; logs in %s%n",
                o.nodes(), o.cameras(), o.seed(), script.frames(), loopSeconds, truthPerLoop, o.threads(), o.minutes(), o.killEveryMinutes(),
                Runtime.getRuntime().availableProcessors(), o.work());
        Thread killNodes = new Thread(() -> nodes.forEach(n -> {
            try {
                if (n.alive()) n.kill();
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }), "cluster-soak-stop");
        Runtime.getRuntime().addShutdownHook(killNodes);
        try {
            return soak(truthPerLoop, loopSeconds);
        } finally {
            Runtime.getRuntime().removeShutdownHook(killNodes);
            for (DetectionTap t : allTaps) t.close();
            for (NodeProcess n : nodes) n.close();
        }
    }

    private int soak(long truthPerLoop, double loopSeconds) throws Exception {
        for (NodeProcess n : nodes) n.start();
        for (NodeProcess n : nodes) ClusterBenchmark.await(n::ready, 300_000, n.name + " ready", n);
        ClusterBenchmark.await(() -> owned() == o.cameras(), 120_000, "every camera owned");
        for (NodeProcess n : nodes) connectTap(n);
        t0 = System.currentTimeMillis();
        Path samples = o.work().resolve("samples.csv");
        StringBuilder header = new StringBuilder("t_s,alive,owned,silent_now,crossings,decreases");
        for (NodeProcess n : nodes) header.append(',').append(n.name).append("_rss_mib,").append(n.name).append("_threads");
        Files.writeString(samples, header.append('\n').toString());
        long end = t0 + (long) (o.minutes() * 60_000);
        long killEvery = (long) (o.killEveryMinutes() * 60_000);
        long nextKill = t0 + killEvery;
        long nextSample = t0;
        int killIndex = 0;
        long lastPrint = 0;
        while (System.currentTimeMillis() < end) {
            long now = System.currentTimeMillis();
            if (now >= nextKill && nextKill < end) {
                kill(killIndex, nodes.get(killIndex % nodes.size()));
                killIndex++;
                nextKill += killEvery;
                continue;
            }
            if (now >= nextSample) {
                String row = sample();
                Files.writeString(samples, row + "\n", StandardOpenOption.APPEND);
                if (now - lastPrint >= 60_000) {
                    out.printf(Locale.ROOT, "t=%5.0fs %s%n", (now - t0) / 1000.0, row);
                    lastPrint = now;
                }
                nextSample += (long) (o.sampleSeconds() * 1000);
            }
            Thread.sleep(Math.max(10, Math.min(nextSample, Math.min(nextKill, end)) - System.currentTimeMillis()));
        }
        sample();
        return summary(truthPerLoop, loopSeconds);
    }

    /** kill -9 of {@code victim}; waits for its cameras on the survivors, then starts it again. */
    private void kill(int index, NodeProcess victim) throws Exception {
        NodeProcess observer = nodes.stream().filter(n -> n != victim && n.alive()).findFirst().orElseThrow();
        String victimId = victim.id();
        List<String> moved = new ArrayList<>();
        try {
            for (Object x : new JsonArray(observer.get("/api/cameras"))) {
                JsonObject c = (JsonObject) x;
                if (victimId.equals(c.getString("owner"))) moved.add(c.getString("id"));
            }
        } catch (IOException e) {
            // not reachable: the moved cameras are then those the clients last heard from the victim
            seen.forEach((c, s) -> {
                if (victimId.equals(s.lastNode)) moved.add(c);
            });
        }
        countsAtLastKill.clear();
        countsAtLastKill.putAll(lastCounts);
        long signalAt = System.currentTimeMillis();
        for (String c : moved) seen.get(c).watch(victimId, signalAt);
        victim.kill();
        DetectionTap oldTap = taps.remove(victim);
        if (oldTap != null) oldTap.close();
        String problem = null;
        boolean back = ClusterBenchmark.awaitQuietly(() -> moved.stream().noneMatch(c -> Double.isNaN(seen.get(c).firstAfterKill)), 60_000);
        long worst = 0;
        for (String c : moved) worst = Math.max(worst, (long) (seen.get(c).firstAfterKill - signalAt));
        if (!back) {
            problem = "cameras not back within 60 s: " + moved.stream().filter(c -> Double.isNaN(seen.get(c).firstAfterKill)).toList();
            worst = 60_000;
        }
        long restartAt = System.currentTimeMillis();
        victim.start();
        ClusterBenchmark.await(victim::ready, 300_000, victim.name + " ready again", victim);
        double restart = (System.currentTimeMillis() - restartAt) / 1000.0;
        connectTap(victim);
        Kill k = new Kill(index + 1, victim.name, (signalAt - t0) / 1000.0, moved.size(), worst, restart, problem);
        kills.add(k);
        out.printf(Locale.ROOT, "kill -9 %2d of %s at %s (t=%.0fs): %d camera(s) moved, all streaming again after %d ms; restarted, ready in %.1f s%s%n",
                k.index(), k.node(), LocalTime.ofInstant(Instant.ofEpochMilli(signalAt), ZoneId.systemDefault()).truncatedTo(ChronoUnit.SECONDS),
                k.atS(), k.moved(), k.worstMs(), k.restartS(), problem != null ? "; PROBLEM: " + problem : "");
    }

    /** One row of samples.csv; checks the counts against the highest seen. */
    private String sample() {
        long now = System.currentTimeMillis();
        int alive = 0;
        for (NodeProcess n : nodes) if (n.alive()) alive++;
        int silent = 0;
        for (CameraSeen s : seen.values()) if (Double.isNaN(s.lastAt) || now - s.lastAt > o.failoverLimitMs()) silent++;
        Map<String, Long> counts = counts();
        if (counts != null) {
            for (var e : counts.entrySet()) {
                Long before = highest.get(e.getKey());
                if (before != null && e.getValue() < before) {
                    decreases.add(String.format(Locale.ROOT, "t=%.0fs %s %d -> %d", (now - t0) / 1000.0, e.getKey(), before, e.getValue()));
                }
                highest.merge(e.getKey(), e.getValue(), Math::max);
                firstCounts.putIfAbsent(e.getKey(), e.getValue());
            }
            for (String k : highest.keySet()) {
                if (!counts.containsKey(k)) decreases.add(String.format(Locale.ROOT, "t=%.0fs %s gone (was %d)", (now - t0) / 1000.0, k, highest.get(k)));
            }
            lastCounts = counts;
        }
        long crossings = lastCounts.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%.0f,%d,%d,%d,%d,%d", (now - t0) / 1000.0, alive, owned(), silent,
                crossings, decreases.size()));
        for (NodeProcess n : nodes) row.append(',').append(procStatus(n, "VmRSS:", 1024)).append(',').append(procStatus(n, "Threads:", 1));
        return row.toString();
    }

    /** The line counts of every camera from the first live node that answers: key camera/line/class/in|out. */
    private Map<String, Long> counts() {
        for (NodeProcess n : nodes) {
            if (!n.alive()) continue;
            try {
                Map<String, Long> out = new TreeMap<>();
                for (Object c : new JsonObject(n.get("/api/counts")).getJsonArray("cameras")) {
                    JsonObject cam = (JsonObject) c;
                    for (Object l : cam.getJsonArray("lines", new JsonArray())) {
                        JsonObject x = (JsonObject) l;
                        String key = cam.getString("cameraId") + "/" + x.getString("line") + "/" + x.getString("className");
                        out.put(key + "/in", x.getLong("in", 0L));
                        out.put(key + "/out", x.getLong("out", 0L));
                    }
                }
                return out;
            } catch (Exception e) {
                // the next node
            }
        }
        return null;
    }

    private int summary(long truthPerLoop, double loopSeconds) throws IOException {
        StringBuilder csv = new StringBuilder("kill,node,at_s,moved,worst_ms,restart_s,problem\n");
        for (Kill k : kills) {
            csv.append(String.format(Locale.ROOT, "%d,%s,%.0f,%d,%d,%.1f,%s%n", k.index(), k.node(), k.atS(), k.moved(), k.worstMs(), k.restartS(),
                    k.problem() == null ? "" : '"' + k.problem().replace('"', '\'') + '"'));
        }
        Files.writeString(o.work().resolve("kills.csv"), csv.toString());
        boolean ok = true;

        List<Long> worst = kills.stream().map(Kill::worstMs).sorted().toList();
        long problems = kills.stream().filter(k -> k.problem() != null).count();
        boolean killsOk = problems == 0 && worst.stream().allMatch(w -> w <= o.failoverLimitMs()) && !kills.isEmpty();
        ok &= killsOk;
        out.printf(Locale.ROOT, "kills: %d, %d cameras moved; all of a kill's cameras streaming again after p50 %.0f ms, max %.0f ms; "
                        + "restarted node ready after p50 %.1f s: %s (limit %d ms)%n",
                kills.size(), kills.stream().mapToInt(Kill::moved).sum(), ClusterBenchmark.pct(worst.stream().map(Long::doubleValue).toList(), 50),
                worst.isEmpty() ? Double.NaN : (double) worst.getLast(),
                ClusterBenchmark.pct(kills.stream().map(Kill::restartS).toList(), 50), killsOk ? "PASS" : "FAIL", o.failoverLimitMs());

        double now = System.currentTimeMillis();
        boolean lost = false;
        StringBuilder gaps = new StringBuilder();
        for (var e : new TreeMap<>(seen).entrySet()) {
            CameraSeen s = e.getValue();
            boolean streaming = !Double.isNaN(s.lastAt) && now - s.lastAt <= o.failoverLimitMs();
            lost |= !streaming || s.longestGapMs > o.failoverLimitMs();
            gaps.append(String.format(Locale.ROOT, " %s %.1f s%s", e.getKey(), s.longestGapMs / 1000, streaming ? "" : " (NOT STREAMING AT THE END)"));
        }
        ok &= !lost;
        out.printf(Locale.ROOT, "no camera lost: longest silence at the clients per camera:%s: %s (limit %d ms)%n", gaps, lost ? "FAIL" : "PASS",
                o.failoverLimitMs());

        long total = lastCounts.values().stream().mapToLong(Long::longValue).sum();
        long first = firstCounts.values().stream().mapToLong(Long::longValue).sum();
        List<String> stalled = new ArrayList<>();
        for (int i = 1; i <= o.cameras(); i++) {
            String cam = "cam" + i + "/";
            long atKill = countsAtLastKill.entrySet().stream().filter(x -> x.getKey().startsWith(cam)).mapToLong(Map.Entry::getValue).sum();
            long atEnd = lastCounts.entrySet().stream().filter(x -> x.getKey().startsWith(cam)).mapToLong(Map.Entry::getValue).sum();
            if (atEnd <= atKill) stalled.add("cam" + i + " (" + atKill + " at the last kill, " + atEnd + " at the end)");
        }
        boolean countsOk = decreases.isEmpty() && stalled.isEmpty() && total > first;
        ok &= countsOk;
        double loops = o.minutes() * 60 / loopSeconds;
        out.printf(Locale.ROOT, "no counter reset: %d crossings counted in all (%d at the first sample; the truth over ~%.0f loops of %d cameras: ~%d); "
                        + "decreases %d%s; cameras counting on after the last kill: %s: %s%n",
                total, first, loops, o.cameras(), Math.round(truthPerLoop * loops * o.cameras()), decreases.size(),
                decreases.isEmpty() ? "" : " (first: " + decreases.getFirst() + ")", stalled.isEmpty() ? "all" : "not " + stalled,
                countsOk ? "PASS" : "FAIL");

        PublisherCheck.Result all = PublisherCheck.Result.NONE;
        for (DetectionTap t : allTaps) all = all.plus(PublisherCheck.check(t.received(), 100));
        ok &= all.clean();
        out.printf(Locale.ROOT, "one owner: %d messages at %d clients, %d camera samples of 100 ms, %d with overlapping frame times; "
                        + "epochs going back %d, an epoch from two nodes %d, interleaved epochs %d: %s%n",
                all.messages(), allTaps.size(), all.samples(), all.overlappingSamples(), all.epochRegressions(), all.epochsFromTwoNodes(),
                all.interleavedEpochs(), all.clean() ? "PASS" : "FAIL");
        out.println("cluster soak: " + (ok ? "PASS" : "FAIL"));
        return ok ? 0 : 1;
    }

    // ------------------------------------------------------------------------------------------------------------

    private JsonObject nodeConfig(int http, int hazelcastPort, List<String> members, JsonArray cameras) {
        Path models = io.argus.pipeline.cli.ProjectPaths.home().resolve("config/models");
        return new JsonObject()
                .put("http", new JsonObject().put("host", "127.0.0.1").put("port", http))
                .put("models", new JsonArray().add(new JsonObject()
                        .put("id", "demo").put("cfg", models.resolve("demo.cfg").toString())
                        .put("weights", models.resolve("demo.weights").toString())
                        .put("names", models.resolve("demo.names").toString())
                        .put("threshold", 0.25).put("maxBatch", 4).put("maxWaitMs", 10)))
                .put("cameras", cameras.copy())
                .put("snapshots", new JsonObject().put("fps", 1).put("maxWidth", 160))
                .put("cacheDir", o.work().resolve("cache").toString())
                .put("cluster", new JsonObject().put("enabled", true).put("name", "argus-soak-" + ProcessHandle.current().pid())
                        .put("host", "127.0.0.1").put("port", hazelcastPort).put("members", new JsonArray(members))
                        .put("heartbeatIntervalMs", 1000).put("maxNoHeartbeatMs", 5000)
                        .put("leaseMs", 10_000).put("renewIntervalMs", 300).put("minSize", o.nodes() / 2 + 1));
    }

    private static int portOf(Path config) throws IOException {
        return new JsonObject(Files.readString(config)).getJsonObject("http").getInteger("port");
    }

    private void connectTap(NodeProcess n) throws Exception {
        DetectionTap t = DetectionTap.connect(n, r -> {
            CameraSeen s = seen.get(r.camera());
            if (s != null) s.arrived(r);
        });
        taps.put(n, t);
        allTaps.add(t);
    }

    /** Cameras with an owner, as the first live node that answers says. */
    private int owned() {
        for (NodeProcess n : nodes) {
            if (!n.alive()) continue;
            try {
                int owned = 0;
                for (Object x : new JsonArray(n.get("/api/cameras"))) if (((JsonObject) x).getString("owner") != null) owned++;
                return owned;
            } catch (Exception e) {
                // the next node
            }
        }
        return 0;
    }

    private static String procStatus(NodeProcess n, String field, int divisor) {
        if (!n.alive()) return "";
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(n.pid()), "status"))) {
                if (l.startsWith(field)) return Long.toString(Long.parseLong(l.substring(field.length()).trim().split("\\s+")[0]) / divisor);
            }
        } catch (IOException | RuntimeException e) {
            // gone meanwhile
        }
        return "";
    }

    private static long sum(JsonObject perClass) {
        long s = 0;
        for (String k : perClass.fieldNames()) s += perClass.getLong(k);
        return s;
    }
}
