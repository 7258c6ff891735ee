package io.argus.pipeline.cluster;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.testing.TestCluster;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.PfxOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The event bus's TLS identity derived from the cluster secret: every holder of the secret makes the same key and
 * certificate; the options survive the clustered event bus's copy through JSON (it builds its server and client from
 * {@code EventBusOptions.toJson()}); over those copies a peer with the secret completes a mutual TLS handshake, and
 * one with another secret's identity, or with none, gets nothing across. Budget: 5 s.
 */
@Budget(seconds = 25)
class DerivedIdentityTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception { vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS); }

    private static ClusterKeys keys(String secret) { return new ClusterKeys(new ClusterSecret(secret, "test")); }

    private static EventBusOptions bus(ClusterKeys keys) {
        EventBusOptions o = new EventBusOptions();
        ClusterEventBus.configure(o, ClusterConfig.OFF, keys);
        return o;
    }

    @Test
    void everyHolderOfTheSecretMakesTheSameCertificateAndNoOtherSecretDoes() throws Exception {
        DerivedIdentity one = keys(TestCluster.SECRET).identity();
        DerivedIdentity two = keys(TestCluster.SECRET).identity();
        DerivedIdentity other = keys(TestCluster.SECRET + "-other").identity();
        assertArrayEquals(one.certificate().getEncoded(), two.certificate().getEncoded(), "deterministic: the same on every node");
        assertNotEquals(one.certificate().getPublicKey(), other.certificate().getPublicKey());
        one.certificate().verify(one.certificate().getPublicKey()); // self-signed
        assertEquals("EC", one.privateKey().getAlgorithm());
        assertFalse(one.toString().contains(TestCluster.SECRET));
    }

    @Test
    void theOptionsSurviveTheJsonCopyAndOnlyAHolderOfTheSecretGetsAcross() throws Exception {
        EventBusOptions options = bus(keys(TestCluster.SECRET));
        assertTrue(options.isSsl());
        assertEquals(ClientAuth.REQUIRED, options.getClientAuth());
        assertFalse(options.isTrustAll());
        // what the clustered event bus does with them (ClusteredEventBus: new NetServerOptions(options.toJson()), ...)
        NetServerOptions serverOptions = new NetServerOptions(options.toJson()).setHost("127.0.0.1").setPort(0);
        NetClientOptions clientOptions = new NetClientOptions(options.toJson()).setHostnameVerificationAlgorithm("");
        assertInstanceOf(PfxOptions.class, serverOptions.getKeyCertOptions(), "the key store survives the copy");
        assertTrue(((PfxOptions) serverOptions.getKeyCertOptions()).getValue().length() > 0);
        assertInstanceOf(PfxOptions.class, clientOptions.getTrustOptions(), "the trust store survives the copy");
        assertEquals(ClientAuth.REQUIRED, serverOptions.getClientAuth());
        assertFalse(clientOptions.isTrustAll());

        List<String> received = new CopyOnWriteArrayList<>();
        NetServer server = vertx.createNetServer(serverOptions).connectHandler(s -> s.handler(b -> received.add(b.toString())));
        int port = server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();

        // the clients are held: Vert.x closes an unreachable client, with its connections
        NetClient holder = vertx.createNetClient(clientOptions);
        NetSocket peer = holder.connect(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        peer.write(Buffer.buffer("from a holder of the secret")).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        waitFor(() -> !received.isEmpty(), 5_000, 20, "the holder's message");
        assertEquals(List.of("from a holder of the secret"), received);

        // another secret's identity: refused (its certificate is not trusted, nor is the server's by it)
        NetClientOptions stranger = new NetClientOptions(bus(keys(TestCluster.SECRET + "-other")).toJson()).setHostnameVerificationAlgorithm("");
        NetClient strangerClient = vertx.createNetClient(stranger);
        assertThrows(Exception.class, () -> strangerClient.connect(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS),
                "a client that trusts only its own (other) certificate refuses the server");
        // the stranger trusting any server and presenting its own certificate: the server still refuses it
        NetClient trustingStranger = vertx.createNetClient(new NetClientOptions(stranger).setTrustAll(true));
        try {
            NetSocket s = trustingStranger.connect(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            s.write(Buffer.buffer("from a stranger"));
        } catch (Exception refused) {
            // refused during the handshake: as it should
        }
        // plain TCP: the bytes are no TLS handshake
        NetClient plain = vertx.createNetClient();
        try {
            NetSocket s = plain.connect(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            s.write(Buffer.buffer("plain text"));
        } catch (Exception refused) {
            // closed at once
        }
        Waits.holdsFor(() -> received.equals(List.of("from a holder of the secret")), 1000,
                "only the holder of the secret got across");
        for (NetClient c : List.of(holder, strangerClient, trustingStranger, plain)) c.close();
    }
}
