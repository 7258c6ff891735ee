package io.argus.pipeline.app;

import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.cluster.ClusterChanges;
import io.argus.pipeline.events.EventHistory;
import io.argus.pipeline.events.EventQueries;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The events verticle's answers as REST serves them in a cluster: zones and lines drawn over REST are also written to
 * the cluster's record of run-time changes ({@link ClusterChanges}), which every node copies to its own file, so they
 * outlive a stop of every node and not only on the node that served the request. Everything else is the verticle's.
 */
final class RecordedRules implements EventQueries {
    private final EventQueries inner;
    private final ClusterChanges changes;

    RecordedRules(EventQueries inner, ClusterChanges changes) {
        this.inner = inner;
        this.changes = changes;
    }

    /** Drawn, kept cluster-wide by the verticle, then recorded; when the record cannot take them the answer says so. */
    @Override
    public Future<JsonArray> setRules(String camera, RulePart part, JsonArray rules) {
        return inner.setRules(camera, part, rules).compose(kept -> changes.rulesChanged(camera).map(kept)
                .recover(e -> Future.failedFuture(new RequestRefused(500, part.key() + " of camera " + camera
                        + " are in use but not kept for a restart of the whole cluster: " + e.getMessage(), e))));
    }

    @Override public Future<JsonObject> events(EventHistory.Query query) { return inner.events(query); }

    @Override public Future<JsonObject> event(String id) { return inner.event(id); }

    @Override public Future<byte[]> picture(String eventId, io.argus.pipeline.base.EventPicture kind) { return inner.picture(eventId, kind); }

    @Override public Future<JsonObject> counts(String camera) { return inner.counts(camera); }

    @Override public Future<JsonArray> rules(String camera, RulePart part) { return inner.rules(camera, part); }

    @Override public Future<Void> forget(String camera) { return inner.forget(camera); }
}
