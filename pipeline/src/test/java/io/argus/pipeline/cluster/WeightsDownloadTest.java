package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A promoted version's weights travel between nodes in 1 MiB chunks ({@link WeightsServer}, {@link WeightsDownload})
 * and are kept only when they are exactly what the announcement says: its size, chunk by chunk, and its full SHA-256.
 * A node that lies about its weights (another hash, another size, a chunk too long) or does not answer leaves no file
 * behind; an announcement with a field out of bounds is refused before anything is fetched. One plain Vert.x, the
 * serving node's registry played by a function that names a weights file.
 *
 * <p>Budget: 5 s.
 */
@Budget(seconds = 5)
class WeightsDownloadTest {
    static final String VERSION = "sha256:0123456789ab";
    static Vertx vertx;
    static Path dir;
    static Path weights;
    static byte[] content;
    static WeightsDigest digest;
    static final AtomicInteger chunksServed = new AtomicInteger();

    @BeforeAll
    static void serve() throws Exception {
        vertx = Vertx.vertx();
        dir = Files.createTempDirectory(TestMedia.dir(), "weights-download-");
        content = new byte[(5 << 20) / 2 + 123]; // 2.5 MiB and a bit: two whole chunks and a short one
        new Random(7).nextBytes(content);
        weights = dir.resolve("kept.weights");
        Files.write(weights, content);
        digest = WeightsDigest.of(weights);
        // the registry of the serving node: the file of one kept version
        WeightsServer server = new WeightsServer(vertx, "tiny", version -> VERSION.equals(version) ? Future.succeededFuture(weights)
                : Future.failedFuture(RequestRefused.notFound("no weights kept for version " + version)));
        vertx.eventBus().consumer(Addresses.nodeWeights("honest"), m -> {
            chunksServed.incrementAndGet();
            server.answer(m);
        });
        // a node that sends twice the chunk it was asked for, with the right size header
        vertx.eventBus().consumer(Addresses.nodeWeights("liar"), m -> m.reply(Buffer.buffer(new byte[2 << 20]),
                new DeliveryOptions().addHeader(WeightsServer.SIZE, Long.toString(content.length))));
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theAnnouncedWeightsArriveWholeInChunks() throws Exception {
        Path incoming = Files.createTempDirectory(dir, "incoming-");
        chunksServed.set(0);
        Path file = await(WeightsDownload.fetch(vertx, announced("honest", digest.size(), digest.sha256()), incoming));
        assertArrayEquals(content, Files.readAllBytes(file));
        assertEquals(3, chunksServed.get(), "chunks of at most 1 MiB");
    }

    @Test
    void weightsThatAreNotWhatWasAnnouncedLeaveNothing() throws Exception {
        Path incoming = Files.createTempDirectory(dir, "incoming-");
        String otherHash = "f".repeat(64);
        assertFails(announced("honest", digest.size(), otherHash), incoming, "hash to sha256 " + digest.sha256());
        assertFails(announced("honest", digest.size() - 1, digest.sha256()), incoming, "keeps \"" + content.length + "\" bytes");
        assertFails(announced("liar", digest.size(), digest.sha256()), incoming, "sent 2097152 bytes at offset 0");
        assertFails(announced("gone", digest.size(), digest.sha256()), incoming, "sent no weights");
        try (var left = Files.list(incoming)) {
            assertEquals(List.of(), left.toList(), "no file left behind");
        }
    }

    @Test
    void anAnnouncementOutOfBoundsIsRefused() {
        JsonObject good = announced("honest", digest.size(), digest.sha256()).toJson();
        assertEquals(VERSION, VersionAnnouncement.from(good).version());
        assertRefused(good.copy().put("size", VersionAnnouncement.MAX_BYTES + 1), "size");
        assertRefused(good.copy().put("size", -1), "size");
        assertRefused(good.copy().put("sha256", "0123456789ab"), "sha256");
        assertRefused(good.copy().put("version", "../../etc/passwd"), "version");
        assertRefused(good.copy().put("node", "../other"), "node id");
        assertRefused(good.copy().put("model", "a/b"), "model id");
        // an older node's announcement: no size, an HTTP address to fetch from
        JsonObject older = good.copy().put("http", "127.0.0.1:8080");
        older.remove("size");
        older.remove("sha256");
        assertRefused(older, "an older node's announcement");
    }

    private static VersionAnnouncement announced(String node, long size, String sha256) {
        return new VersionAnnouncement("tiny", VERSION, node, size, sha256, "swapped", 0);
    }

    private static void assertFails(VersionAnnouncement a, Path incoming, String reason) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(WeightsDownload.fetch(vertx, a, incoming)));
        assertTrue(e.getCause().getMessage().contains(reason), "expected \"" + reason + "\" in: " + e.getCause().getMessage());
    }

    private static void assertRefused(JsonObject announcement, String field) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> VersionAnnouncement.from(announcement));
        assertTrue(e.getMessage().contains(field), "names " + field + ": " + e.getMessage());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
}
