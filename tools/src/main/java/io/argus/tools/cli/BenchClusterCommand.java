package io.argus.tools.cli;

import io.argus.pipeline.cli.ProjectPaths;
import io.argus.pipeline.cli.RunCommand;
import io.argus.tools.cluster.ClusterBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench cluster}: several nodes as separate processes on this machine; failover after kill -9, the gap
 * of a graceful hand-over, cross-node latency, messages per second, and the one-owner check (docs/cluster.md).
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = {"Benchmark a cluster of nodes started on this machine.",
                "Failover after kill -9, graceful hand-over (SIGTERM), cross-node latency, messages/s, and that no",
                "camera is published by two nodes at once. Nodes are separate processes on loopback."})
final class BenchClusterCommand implements Callable<Integer> {
    @Option(names = "--nodes", defaultValue = "3", description = "nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--cameras", defaultValue = "12", description = "file cameras, looped in real time (default ${DEFAULT-VALUE})")
    int cameras;

    @Option(names = "--kills", defaultValue = "20", description = "kill -9 rounds, round robin over the nodes, each restarted after (default ${DEFAULT-VALUE})")
    int kills;

    @Option(names = "--handovers", defaultValue = "3", description = "SIGTERM rounds (graceful hand-over), each node restarted after (default ${DEFAULT-VALUE})")
    int handovers;

    @Option(names = "--seconds", defaultValue = "30", description = "steady-state seconds measured before the rounds (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--width", defaultValue = "320", description = "video width (default ${DEFAULT-VALUE})")
    int width;

    @Option(names = "--height", defaultValue = "240", description = "video height (default ${DEFAULT-VALUE})")
    int height;

    @Option(names = "--fps", defaultValue = "5", description = "video frame rate (default ${DEFAULT-VALUE})")
    int fps;

    @Option(names = "--cfg", description = "Darknet cfg (default: config/models/cfg/yolov4-tiny.cfg), random weights (seed 1 on every node)")
    Path cfg;

    @Option(names = "--size", defaultValue = "160", description = "network input size (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--threshold", defaultValue = "0.2512", description = "confidence threshold (default ${DEFAULT-VALUE}: random weights, a few boxes a frame)")
    double threshold;

    @Option(names = "--threads", defaultValue = "1", description = "oneDNN threads per node (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--heartbeat-ms", defaultValue = "1000", description = "cluster.heartbeatIntervalMs (default ${DEFAULT-VALUE})")
    long heartbeatMs;

    @Option(names = "--max-no-heartbeat-ms", defaultValue = "5000", description = "cluster.maxNoHeartbeatMs (default ${DEFAULT-VALUE})")
    long maxNoHeartbeatMs;

    @Option(names = "--lease-ms", defaultValue = "10000", description = "cluster.leaseMs (default ${DEFAULT-VALUE})")
    long leaseMs;

    @Option(names = "--renew-ms", defaultValue = "300", description = "cluster.renewIntervalMs (default ${DEFAULT-VALUE})")
    long renewMs;

    @Option(names = "--min-size", description = "cluster.minSize (default: nodes / 2 + 1, a majority)")
    Integer minSize;

    @Option(names = "--failover-limit-ms", defaultValue = "10000", description = "PASS/FAIL limit: every moved camera streaming again (default ${DEFAULT-VALUE})")
    long failoverLimitMs;

    @Option(names = "--handover-gap-limit-ms", defaultValue = "2000", description = "PASS/FAIL limit: gap of a graceful hand-over (default ${DEFAULT-VALUE})")
    long handoverGapLimitMs;

    @Option(names = "--work", description = "where node configs, logs and rounds.csv go (default: a new folder under the temp dir)")
    Path work;

    @Option(names = "--cache-dir", description = "where the benchmark video is kept (default: $ARGUS_CACHE_DIR, else $XDG_CACHE_HOME/argus, else ~/.cache/argus)")
    Path cacheDir;

    @Override
    public Integer call() throws Exception {
        RunCommand.configureLogging();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path model = cfg != null ? cfg.toAbsolutePath() : ProjectPaths.home().resolve("config/models/cfg/yolov4-tiny.cfg");
        if (!Files.isRegularFile(model)) throw new IllegalArgumentException("--cfg " + model + ": no such file");
        Path dir = work != null ? work.toAbsolutePath() : Files.createTempDirectory("argus-bench-cluster-");
        var options = new ClusterBenchmark.Options(nodes, cameras, kills, handovers, seconds, width, height, fps, model, size,
                threshold, threads, heartbeatMs, maxNoHeartbeatMs, leaseMs, renewMs, minSize != null ? minSize : nodes / 2 + 1,
                dir, cacheDir != null ? cacheDir : io.argus.gpu.CacheHome.current(), failoverLimitMs, handoverGapLimitMs);
        return new ClusterBenchmark(options, System.out).run();
    }
}
