package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.EventPicture;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.publish.Snapshots;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * This node's snapshots for the other nodes of the cluster. A camera's JPEG snapshots are made and kept by the node
 * that runs it; another node asked for one (a dashboard or script on any node) asks this one on
 * {@code argus.node.<this node>.snapshots} ({@link Addresses#nodeSnapshots}) with a {@link SnapshotQuery}, and gets the JPEG (a
 * {@link Buffer}, its frame number in the {@value #FRAME} header) or a failure: 400 for a malformed query, 404 when
 * there is no such picture here. The request travels on the clustered event bus, whose members proved the cluster
 * secret; a node's HTTP address and its API token play no part. Nothing is passed on from here (the owner answers
 * from what it holds), so a request cannot loop while ownership moves. One picture per request: video frames never
 * cross the cluster.
 */
public final class NodeSnapshots extends VerticleBase {
    /** Reply header: the frame number of the JPEG. */
    public static final String FRAME = "frame";
    /**
     * The largest JPEG a node sends or accepts. Snapshots are scaled to {@code snapshots.maxWidth} (at most 8192
     * pixels wide), which at the highest quality stays well below.
     */
    public static final int MAX_JPEG_BYTES = 32 << 20;
    /** How long an event's best snapshot may take from this node's events verticle. */
    private static final long EVENTS_MS = 3000;

    private final String node;
    private final Snapshots snapshots;
    private final BiFunction<String, EventPicture, Future<byte[]>> eventSnapshots;
    private MessageConsumer<Object> consumer;

    /**
     * @param eventSnapshots an event's best snapshot, as this node's events verticle keeps it for its cameras
     *                       ({@code events/EventQueries#picture}: 421 for an event of a camera that runs elsewhere)
     */
    public NodeSnapshots(String node, Snapshots snapshots, BiFunction<String, EventPicture, Future<byte[]>> eventSnapshots) {
        this.node = node;
        this.snapshots = snapshots;
        this.eventSnapshots = eventSnapshots;
    }


    @Override
    public Future<?> start() {
        consumer = vertx.eventBus().consumer(Addresses.nodeSnapshots(node), this::answer);
        return consumer.completion();
    }

    @Override
    public Future<?> stop() { return consumer.unregister(); }

    private void answer(Message<Object> m) {
        SnapshotQuery q;
        try {
            q = SnapshotQuery.from(m.body());
        } catch (IllegalArgumentException e) {
            m.fail(400, "snapshot request: " + e.getMessage());
            return;
        }
        if (q.event() != null) {
            eventSnapshot(m, q);
            return;
        }
        Snapshots.Snapshot s = q.frame() == null ? snapshots.latest(q.camera()) : snapshots.get(q.camera(), q.frame());
        if (s == null) {
            m.fail(404, "no snapshot (yet) of " + q.describe() + " on node " + node);
        } else {
            send(m, Buffer.buffer(s.jpeg()), new DeliveryOptions().addHeader(FRAME, Long.toString(s.frame())));
        }
    }

    /** An event's best snapshot, kept by this node's events verticle while the camera runs here. */
    private void eventSnapshot(Message<Object> m, SnapshotQuery q) {
        eventSnapshots.apply(q.event(), q.picture()).timeout(EVENTS_MS, TimeUnit.MILLISECONDS).onComplete(ar -> {
            int status = ar.failed() ? RequestRefused.statusOf(ar.cause()) : 200;
            if (ar.succeeded()) {
                send(m, Buffer.buffer(ar.result()), new DeliveryOptions());
            } else if (status == 421) {
                m.fail(404, "no snapshot of " + q.describe() + ": camera " + q.camera() + " does not run on node " + node);
            } else if (status >= 400 && status < 500) {
                m.fail(status, ar.cause().getMessage());
            } else {
                m.fail(500, "no snapshot of " + q.describe() + " on node " + node + ": " + ar.cause().getMessage());
            }
        });
    }

    private void send(Message<Object> m, Buffer jpeg, DeliveryOptions options) {
        if (jpeg.length() > MAX_JPEG_BYTES) {
            m.fail(500, "snapshot of " + jpeg.length() + " bytes, more than the " + MAX_JPEG_BYTES + " a node sends");
        } else {
            m.reply(jpeg, options);
        }
    }
}
