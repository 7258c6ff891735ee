package io.argus.tools.cli;

import io.argus.pipeline.cli.RunCommand;
import io.argus.tools.cluster.ClusterSoak;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus bench cluster-soak}: a cluster of nodes on this machine for hours, a kill -9 every few minutes; no
 * camera lost, no counter reset, one owner per camera (docs/reliability.md, "Cluster soak").
 */
@Command(name = "cluster-soak", mixinStandardHelpOptions = true,
        description = {"Soak a local cluster, a kill -9 every few minutes.",
                "Nodes are separate processes on this machine, one killed (kill -9) and restarted every few minutes.",
                "Cameras loop the synthetic tracking video with its counting line (demo model). PASS when no camera",
                "is silent longer than the failover limit, no line count ever goes down and counting goes on after",
                "the last kill, and no camera is published by two nodes at once. Writes samples.csv and kills.csv."})
final class BenchClusterSoakCommand implements Callable<Integer> {
    @Option(names = "--nodes", defaultValue = "3", description = "nodes, at least 3 (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--cameras", defaultValue = "3", description = "cameras looping the tracking video in real time (default ${DEFAULT-VALUE})")
    int cameras;

    @Option(names = "--minutes", defaultValue = "60", description = "how long (default ${DEFAULT-VALUE})")
    double minutes;

    @Option(names = "--kill-every-minutes", defaultValue = "10", description = "a kill -9 of the next node every so often (default ${DEFAULT-VALUE})")
    double killEveryMinutes;

    @Option(names = "--seed", defaultValue = "20261130", description = "seed of the tracking video (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--threads", defaultValue = "1", description = "oneDNN threads per node (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--sample-seconds", defaultValue = "10", description = "sampling interval (default ${DEFAULT-VALUE})")
    double sampleSeconds;

    @Option(names = "--failover-limit-ms", defaultValue = "10000", description = "PASS/FAIL: longest a camera may be silent (default ${DEFAULT-VALUE})")
    long failoverLimitMs;

    @Option(names = "--work", description = "where node configs, logs, the video, samples.csv and kills.csv go (default: a new folder under the temp dir)")
    Path work;

    @Override
    public Integer call() throws Exception {
        RunCommand.configureLogging();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path dir = work != null ? work.toAbsolutePath() : Files.createTempDirectory("argus-cluster-soak-");
        return new ClusterSoak(new ClusterSoak.Options(nodes, cameras, minutes, killEveryMinutes, seed, threads, sampleSeconds,
                failoverLimitMs, dir), System.out).run();
    }
}
