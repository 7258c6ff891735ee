package io.argus.pipeline.http;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.cluster.NodeSnapshots;
import io.argus.pipeline.cluster.SnapshotQuery;
import io.argus.pipeline.config.Names;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.ext.web.RoutingContext;

/**
 * In a cluster, a camera's JPEG snapshots are made and kept by the node that runs it; a dashboard or script on any
 * other node gets them all the same: this node asks the camera's owner (its node id, from the cluster's camera list)
 * over the clustered event bus ({@link NodeSnapshots}) and answers with the picture, marked
 * {@code x-argus-snapshot-from: <owner node id>}. The event bus is the channel whose members proved the cluster
 * secret; no node's self-declared HTTP address is called and the API token never leaves this node. Only on request,
 * one picture at a time: video frames still never cross the cluster. Every request has a deadline, and an answer
 * larger than a snapshot can be is refused.
 */
final class OwnerSnapshots {
    /** How long the owner has to answer; then 502. A snapshot is in its memory, so it answers in milliseconds. */
    static final long ANSWER_TIMEOUT_MS = 5000;
    /** At most this much of another node's error is repeated to the client. */
    private static final int REASON_MAX = 300;

    private final Vertx vertx;
    private final Cameras cameras;

    /** {@code cameras}: the cluster-wide list, which knows each camera's owner. */
    OwnerSnapshots(Vertx vertx, Cameras cameras) {
        this.vertx = vertx;
        this.cameras = cameras;
    }

    /**
     * Answers {@code rc} with the picture {@code query} names, asked of the camera's owner; {@code notHere} answers
     * when no node runs the camera.
     */
    void pass(RoutingContext rc, SnapshotQuery query, Runnable notHere) {
        try {
            query.checked();
        } catch (IllegalArgumentException e) {
            JsonReplies.error(rc, 400, e.getMessage());
            return;
        }
        cameras.get(query.camera())
                .onComplete(ar -> {
                    String owner = ar.succeeded() ? ar.result().json().getString("owner") : null;
                    // node ids are Hazelcast's UUIDs; anything else in the lease map names no node to ask
                    if (owner == null || !Names.valid(owner)) {
                        notHere.run();
                        return;
                    }
                    vertx.eventBus().<Object>request(Addresses.nodeSnapshots(owner), query.toJson(),
                            new DeliveryOptions().setSendTimeout(ANSWER_TIMEOUT_MS)).onComplete(reply -> {
                        if (rc.response().ended()) return;
                        if (reply.succeeded()) {
                            answer(rc, query, owner, reply.result().body(), reply.result().headers().get(NodeSnapshots.FRAME));
                        } else if (reply.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
                                && (re.failureCode() == 400 || re.failureCode() == 404)) {
                            rc.response().putHeader("x-argus-snapshot-from", owner);
                            JsonReplies.error(rc, re.failureCode(), bounded(re.getMessage()));
                        } else {
                            JsonReplies.error(rc, 502, "the camera's node " + owner + " did not answer for " + query.describe()
                                    + ": " + bounded(reply.cause().getMessage()));
                        }
                    });
                });
    }

    private static void answer(RoutingContext rc, SnapshotQuery query, String owner, Object body, String frame) {
        if (!(body instanceof Buffer jpeg) || jpeg.length() > NodeSnapshots.MAX_JPEG_BYTES) {
            JsonReplies.error(rc, 502, "the camera's node " + owner + " answered no JPEG of at most " + NodeSnapshots.MAX_JPEG_BYTES
                    + " bytes for " + query.describe());
            return;
        }
        rc.response().putHeader("content-type", "image/jpeg").putHeader("x-argus-snapshot-from", owner)
                // a camera's snapshot changes every moment; an event's best one is final
                .putHeader("cache-control", query.event() != null ? "private, max-age=60" : "no-store");
        if (frame != null && frame.matches("[0-9]{1,18}")) rc.response().putHeader("x-argus-frame", frame);
        rc.response().end(jpeg);
    }

    /** Another node's text, cut to a length fit for a reply. */
    private static String bounded(String reason) {
        String r = String.valueOf(reason);
        return r.length() <= REASON_MAX ? r : r.substring(0, REASON_MAX) + "... (" + r.length() + " characters)";
    }
}
