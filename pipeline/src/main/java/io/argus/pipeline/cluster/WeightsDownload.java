package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.Names;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Fetches an announced version's weights from the node that announced it ({@link WeightsServer}), over the clustered
 * event bus, one chunk at a time into a file of its own: each chunk must come within {@link #CHUNK_TIMEOUT_MS} and be
 * exactly as long as the announced size leaves for its offset, and the whole must hash to the announced SHA-256.
 * Anything else fails the download and removes the file, so a node that lies about its weights, or a transfer that
 * lost a byte, changes nothing here. Memory stays at one chunk whatever the size.
 */
final class WeightsDownload {
    /** How long a node has to send one chunk (1 MiB). */
    static final long CHUNK_TIMEOUT_MS = 10_000;

    private final Vertx vertx;
    private final VersionAnnouncement announced;
    private final Path file;
    private final MessageDigest sha256 = WeightsDigest.hasher();
    private FileChannel out; // on worker threads, one chunk after the other

    private WeightsDownload(Vertx vertx, VersionAnnouncement announced, Path file) {
        this.vertx = vertx;
        this.announced = announced;
        this.file = file;
    }

    /** The weights {@code announced}, checked, in a new file in {@code dir}; the caller deletes it when done with it. */
    static Future<Path> fetch(Vertx vertx, VersionAnnouncement announced, Path dir) {
        return vertx.executeBlocking(() -> {
            Files.createDirectories(dir);
            return Files.createTempFile(dir, "adopt-", ".weights");
        }).compose(file -> new WeightsDownload(vertx, announced, file).run());
    }

    private Future<Path> run() {
        return vertx.executeBlocking(() -> out = FileChannel.open(file, StandardOpenOption.WRITE))
                .compose(v -> from(0))
                .eventually(() -> vertx.executeBlocking(() -> {
                    if (out != null) out.close();
                    return null;
                }))
                .compose(v -> {
                    String actual = HexFormat.of().formatHex(sha256.digest());
                    if (actual.equals(announced.sha256())) return Future.succeededFuture(file);
                    return Future.<Path>failedFuture(new IOException("the weights from node " + announced.node() + " hash to sha256 "
                            + actual + ", its announcement said " + announced.sha256()));
                })
                .recover(e -> vertx.executeBlocking(() -> Files.deleteIfExists(file)).transform(x -> Future.failedFuture(e)));
    }

    /** The chunks from {@code offset} to the announced end. */
    private Future<Void> from(long offset) {
        if (offset >= announced.size()) return Future.succeededFuture();
        int expected = (int) Math.min(WeightsServer.CHUNK_BYTES, announced.size() - offset);
        JsonObject ask = new JsonObject().put("model", announced.model()).put("version", announced.version()).put("offset", offset);
        return vertx.eventBus().<Object>request(Addresses.nodeWeights(announced.node()), ask,
                        new DeliveryOptions().setSendTimeout(CHUNK_TIMEOUT_MS))
                .recover(e -> Future.failedFuture(new IOException("node " + announced.node() + " sent no weights of version "
                        + announced.version() + " at offset " + offset + ": " + e.getMessage(), e)))
                .compose(reply -> checked(reply, offset, expected))
                .compose(chunk -> vertx.executeBlocking(() -> {
                    byte[] bytes = chunk.getBytes();
                    sha256.update(bytes);
                    ByteBuffer rest = ByteBuffer.wrap(bytes);
                    while (rest.hasRemaining()) out.write(rest, offset + rest.position());
                    return null;
                }))
                .compose(v -> from(offset + expected));
    }

    /** The chunk, if it is what the announcement leads to expect at {@code offset}. */
    private Future<Buffer> checked(Message<Object> reply, long offset, int expected) {
        String size = reply.headers().get(WeightsServer.SIZE);
        if (!Long.toString(announced.size()).equals(size)) {
            return Future.failedFuture(new IOException("node " + announced.node() + " keeps " + (size == null ? "an unknown number of"
                    : Names.quoted(size)) + " bytes for version " + announced.version() + ", its announcement said "
                    + announced.size()));
        }
        if (!(reply.body() instanceof Buffer chunk) || chunk.length() != expected) {
            return Future.failedFuture(new IOException("node " + announced.node() + " sent "
                    + (reply.body() instanceof Buffer b ? b.length() + " bytes" : "no bytes") + " at offset " + offset + " of version "
                    + announced.version() + ", expected " + expected));
        }
        return Future.succeededFuture(chunk);
    }
}
