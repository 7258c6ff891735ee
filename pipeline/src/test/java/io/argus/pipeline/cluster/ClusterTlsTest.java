package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.ClusterTls;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * TLS on the clustered event bus, over real Hazelcast membership in this JVM: two nodes whose trust stores hold each
 * other's certificates exchange messages; a third node that joins the same cluster (Hazelcast itself is not
 * encrypted) with a certificate they do not trust can neither deliver to them nor receive from them.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 100)
class ClusterTlsTest {
    @Test
    void onlyNodesWithATrustedCertificateTalkOverTheEventBus() throws Exception {
        Path dir = TestMedia.dir().resolve("cluster-tls-bus");
        Path a = NodeCertificates.keyStore(dir, "node-a", "node-pass");
        Path b = NodeCertificates.keyStore(dir, "node-b", "node-pass");
        Path stranger = NodeCertificates.keyStore(dir, "stranger", "node-pass");
        Path trusted = NodeCertificates.trustStore(dir, "trust-pass", "node-pass", a, b);
        Path strangersTrust = NodeCertificates.trustStore(dir, "trust-pass", "node-pass", a, b, stranger);

        int pa = TestMedia.freePort(), pb = TestMedia.freePort(), pc = TestMedia.freePort();
        List<String> members = List.of("127.0.0.1:" + pa);   // A is the seed the others join through
        String name = "argus-tls-" + pa;
        List<Vertx> nodes = new ArrayList<>();
        try {
            Vertx nodeA = start(name, pa, members, new ClusterTls(a, "node-pass", trusted, "trust-pass", "auto"), nodes);
            Vertx nodeB = start(name, pb, members, new ClusterTls(b, "node-pass", trusted, "trust-pass", "auto"), nodes);
            // the stranger trusts A and B, but they do not trust it
            Vertx nodeC = start(name, pc, members, new ClusterTls(stranger, "node-pass", strangersTrust, "trust-pass", "auto"), nodes);

            AtomicInteger atA = new AtomicInteger();
            nodeA.eventBus().<String>consumer("tls.test", m -> {
                atA.incrementAndGet();
                m.reply("a got " + m.body());
            }).completion().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            AtomicInteger atC = new AtomicInteger();
            nodeC.eventBus().<String>consumer("tls.stranger", m -> {
                atC.incrementAndGet();
                m.reply("c got " + m.body());
            }).completion().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);

            // B -> A over TLS, both directions of the handshake trusted (the subscription may take a moment to spread)
            String[] reply = {null};
            Waits.waitFor(() -> (reply[0] = nodeB.eventBus().<String>request("tls.test", "hello",
                            new DeliveryOptions().setSendTimeout(2000)).toCompletionStage().toCompletableFuture()
                            .get(5, TimeUnit.SECONDS).body()) != null, 45_000, 250, "A's answer to B over TLS");
            assertEquals("a got hello", reply[0]);

            // the stranger -> A: A refuses the connection (client certificate not trusted), nothing arrives
            int before = atA.get();
            assertThrows(Exception.class, () -> nodeC.eventBus().<String>request("tls.test", "intrusion",
                    new DeliveryOptions().setSendTimeout(3000)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(before, atA.get(), "a message from an untrusted node was delivered");
            // B -> the stranger: B does not trust its server certificate, nothing arrives
            assertThrows(Exception.class, () -> nodeB.eventBus().<String>request("tls.stranger", "leak",
                    new DeliveryOptions().setSendTimeout(3000)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(0, atC.get(), "a trusted node delivered to an untrusted one");
            System.out.println("cluster tls: B -> A delivered over mutual TLS; the untrusted node's messages to A and "
                    + "B's to it were refused (A received " + atA.get() + ", the stranger 0)");
        } finally {
            for (Vertx v : nodes) v.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private static Vertx start(String name, int port, List<String> members, ClusterTls tls, List<Vertx> started)
            throws Exception {
        ClusterSecret secret = new ClusterSecret(io.argus.pipeline.testing.TestCluster.SECRET, "test");
        ClusterConfig c = new ClusterConfig(true, name, "127.0.0.1", port, 0, members, null, 1000, 5000, 1, 1, 10_000, 500, tls, secret);
        VertxOptions options = new VertxOptions();
        ClusterKeys keys = new ClusterKeys(secret);
        ClusterEventBus.configure(options.getEventBusOptions(), c, keys);
        Vertx v = Vertx.builder().with(options).withClusterManager(new HazelcastClusterManager(HazelcastSettings.of(c, keys)))
                .buildClustered().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        started.add(v);
        assertTrue(options.getEventBusOptions().isSsl());
        return v;
    }
}
