package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.testing.TestCluster;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Waits;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A member that hangs (SIGSTOP, a frozen VM) still completes TCP connections (the kernel answers from the listen
 * backlog) but never sends a byte. Here such a peer is a plain server socket that accepts and never reads or writes,
 * listed as a member, so the node's Hazelcast connects to it and queues its handshake there. On Hazelcast 5.3's unified
 * endpoint that connection's outbound pipeline re-ran itself on its IO thread without end (its encoder waits for the
 * peer's protocol yet reports clean while packets wait): a core burnt, and every other connection of that thread
 * stalled once its socket buffer filled, which split the survivors of a frozen node (docs/cluster.md, "A frozen
 * node"). With the node's own settings ({@link HazelcastSettings}: a member endpoint of its own) the output threads stay
 * idle while the peer is silent.
 *
 * <p>Budget 30 s: the member's start (its join given up after 3 s), 2 s measured; 14 s alone.
 */
@Budget(seconds = 30)
class FrozenPeerTest {
    /**
     * Measured on the 2-core machine with a silent peer: the unified endpoint's output threads took 2,916 ms of CPU in
     * 3,000 ms (a whole core), the member endpoint's 0 ms.
     */
    static final long MAX_OUTPUT_CPU_MS = 300;
    static final long MEASURED_MS = 2_000;

    @Test
    void aSilentPeerDoesNotKeepAnOutputThreadBusy() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (!silent.isClosed()) accepted.add(silent.accept());   // accepted, never read or written
                } catch (java.io.IOException e) {
                    // closed: the test is over
                }
            }, "silent-peer");
            acceptor.setDaemon(true);
            acceptor.start();
            ClusterSecret secret = new ClusterSecret(TestCluster.SECRET, "test");
            int port = TestMedia.freePort();
            ClusterConfig c = new ClusterConfig(true, "frozen", "127.0.0.1", port, 0,
                    List.of("127.0.0.1:" + port, "127.0.0.1:" + silent.getLocalPort()), null, 1000, 5000, 1, 1, 10_000, 500,
                    null, secret);
            Config config = HazelcastSettings.of(c, new ClusterKeys(secret));
            // a short join: the silent peer never answers, so the member gives up on it and starts alone
            config.setProperty("hazelcast.max.join.seconds", "3");
            config.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().setConnectionTimeoutSeconds(2);
            HazelcastInstance[] member = {null};
            // the member looks for the listed peers while it starts: the silent one is connected to then
            Thread starter = new Thread(() -> {
                try {
                    member[0] = Hazelcast.newHazelcastInstance(config);
                } catch (IllegalStateException e) {
                    // the silent peer never answers the join, so the member gives up starting ("Node failed to
                    // start"): what is measured is the time before, while it waits on that peer
                }
            }, "member-start");
            starter.setDaemon(true);
            starter.start();
            try {
                Waits.waitFor(() -> !accepted.isEmpty(), 20_000, 20, "the member connecting to the silent peer");
                long before = outputCpuMs();
                Pace.hold(Duration.ofMillis(MEASURED_MS), "the time the output threads are watched");
                long used = outputCpuMs() - before;
                System.out.printf("frozen peer: Hazelcast's output threads used %d ms of CPU in %d ms with a silent peer%n",
                        used, MEASURED_MS);
                assertTrue(used <= MAX_OUTPUT_CPU_MS, "Hazelcast's output threads used " + used + " ms of CPU in "
                        + MEASURED_MS + " ms while a peer stayed silent: an outbound pipeline spinning");
            } finally {
                starter.join(60_000);
                if (member[0] != null) member[0].getLifecycleService().terminate();
                for (Socket s : accepted) s.close();
            }
        }
    }

    /** CPU time of this JVM's Hazelcast output IO threads, in ms. */
    private static long outputCpuMs() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long nanos = 0;
        for (ThreadInfo t : threads.dumpAllThreads(false, false)) {
            if (t.getThreadName().contains(".IO.thread-out-")) {
                long cpu = threads.getThreadCpuTime(t.getThreadId());
                if (cpu > 0) nanos += cpu;
            }
        }
        return nanos / 1_000_000;
    }
}
