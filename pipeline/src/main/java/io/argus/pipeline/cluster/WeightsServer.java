package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.Names;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;

/**
 * The weights of the versions this node keeps, for the other nodes of the cluster: they ask on
 * {@code argus.node.<this node>.weights} ({@link Addresses#nodeWeights}) for {@code {"model", "version", "offset"}} and get at most
 * {@value #CHUNK_BYTES} bytes from that offset (a {@link Buffer}), with the file's whole size in the {@value #SIZE}
 * header; a malformed request gets 400, a version kept without weights here 404. Chunks keep every message small
 * (weights are tens or hundreds of MB) and let the receiver bound what it holds. The request travels on the
 * clustered event bus, whose members proved the cluster secret; no HTTP, no API token.
 */
final class WeightsServer {
    /** The most a node sends per request. */
    static final int CHUNK_BYTES = 1 << 20;
    /** Reply header: the size of the whole weights file. */
    static final String SIZE = "size";
    private final Vertx vertx;
    private final String model;
    private final Function<String, Future<Path>> kept;

    /**
     * @param model the model whose versions this node keeps (the one it trains)
     * @param kept  the weights file of a version the registry keeps (a failure with its HTTP status for any other)
     */
    WeightsServer(Vertx vertx, String model, Function<String, Future<Path>> kept) {
        this.vertx = vertx;
        this.model = model;
        this.kept = kept;
    }


    /** What another node asks for: {@code offset} into the weights of {@code version} of {@code model}. */
    private record Ask(String model, String version, long offset) {
        /** A request from the cluster, every field checked (an {@link IllegalArgumentException} names the bad one). */
        static Ask from(Object body) {
            if (!(body instanceof JsonObject q)) {
                throw new IllegalArgumentException("expected a JSON object {\"model\", \"version\", \"offset\"}");
            }
            String model = Names.require("model id", q.getValue("model") instanceof String s ? s : null);
            String version = VersionAnnouncement.requireVersion(q.getValue("version") instanceof String s ? s : null);
            Object offset = q.getValue("offset");
            if (!(offset instanceof Integer || offset instanceof Long) || ((Number) offset).longValue() < 0) {
                throw new IllegalArgumentException("offset: expected a byte offset of 0 or more, found "
                        + Names.quoted(String.valueOf(offset)));
            }
            return new Ask(model, version, ((Number) offset).longValue());
        }
    }

    void answer(Message<Object> m) {
        Ask ask;
        try {
            ask = Ask.from(m.body());
        } catch (IllegalArgumentException e) {
            m.fail(400, "weights request: " + e.getMessage());
            return;
        }
        if (!model.equals(ask.model())) {
            m.fail(404, "model " + Names.quoted(ask.model()) + " has no version history here (online training is for \"" + model + "\")");
            return;
        }
        kept.apply(ask.version())
                .compose(file -> vertx.executeBlocking(() -> chunk(file, ask), false))
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        m.reply(ar.result().bytes(), new DeliveryOptions().addHeader(SIZE, Long.toString(ar.result().size())));
                    } else if (ar.cause() instanceof IllegalArgumentException e) {
                        m.fail(400, "weights request: " + e.getMessage());
                    } else if (RequestRefused.statusOf(ar.cause()) != 500) {
                        m.fail(RequestRefused.statusOf(ar.cause()), ar.cause().getMessage());
                    } else {
                        m.fail(500, "weights of version " + ask.version() + ": " + ar.cause().getMessage());
                    }
                });
    }

    private record Chunk(long size, Buffer bytes) {}

    /** At most {@link #CHUNK_BYTES} of {@code file} from the asked offset (blocking: on a worker). */
    private static Chunk chunk(Path file, Ask ask) throws java.io.IOException {
        long offset = ask.offset();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (offset > size) {
                throw new IllegalArgumentException("offset: " + offset + " is past the end of version " + ask.version()
                        + " (" + size + " bytes)");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(CHUNK_BYTES, size - offset));
            while (bytes.hasRemaining() && ch.read(bytes, offset + bytes.position()) >= 0) {
                // reads until the chunk is full (a read may return less)
            }
            bytes.flip();
            return new Chunk(size, Buffer.buffer(java.util.Arrays.copyOf(bytes.array(), bytes.limit())));
        }
    }
}
