package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.answer;
import static io.argus.pipeline.http.JsonReplies.error;
import static io.argus.pipeline.http.JsonReplies.failure;

import io.argus.pipeline.base.EventPicture;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.cluster.SnapshotQuery;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.events.EventHistory;
import io.argus.pipeline.events.EventQueries;
import io.argus.pipeline.events.EventQueries.RulePart;
import io.argus.pipeline.events.MqttOutputVerticle;
import io.argus.tracking.ObjectEvent;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.TimeUnit;

/**
 * REST for tracking (docs/tracking.md), each a call to this node's {@link EventQueries}: a camera's zones and lines
 * ({@code GET/PUT /api/cameras/:id/zones}, {@code /lines}; 404 for a camera Argus does not know), events ({@code /api/events} paged and filtered, one
 * event, its best snapshot), counts ({@code /api/counts}) and the MQTT output's state ({@code /api/mqtt}). Zones, lines, events and counts are cluster-wide,
 * so any node answers; a best snapshot lives on the node that runs the camera and is asked of it over the event bus.
 */
final class EventRoutes {
    private final EventQueries events;
    private final OwnerSnapshots owners;

    private EventRoutes(EventQueries events, OwnerSnapshots owners) {
        this.events = events;
        this.owners = owners;
    }

    /** {@code owners}: null on a single node; {@code mqtt}: null when the MQTT output is off. */
    static void mount(Router router, EventQueries events, OwnerSnapshots owners, MqttOutputVerticle mqtt) {
        EventRoutes r = new EventRoutes(events, owners);
        for (RulePart part : RulePart.values()) {
            String kind = part.key();
            router.get("/api/cameras/:id/" + kind).handler(rc -> {
                String camera = PathIds.name(rc, "id", "camera id");
                if (camera != null) answer(rc, events.rules(camera, part), WAIT_SECONDS, rules -> rules, 200);
            });
            router.put("/api/cameras/:id/" + kind).handler(rc -> {
                String camera = PathIds.name(rc, "id", "camera id");
                JsonArray body = camera != null ? array(rc, kind) : null;
                if (body != null) answer(rc, events.setRules(camera, part, body), WAIT_SECONDS, rules -> rules, 200);
            });
        }
        router.get("/api/events").handler(rc -> {
            EventHistory.Query query;
            try {
                query = EventHistory.Query.parse(rc.queryParams()::get);
            } catch (IllegalArgumentException e) {
                error(rc, 400, e.getMessage());
                return;
            }
            answer(rc, events.events(query), WAIT_SECONDS, page -> page, 200);
        });
        router.get("/api/events/:id/snapshot.jpg").handler(rc -> r.picture(rc, "false".equals(rc.queryParams().get("box"))
                ? EventPicture.CLEAN : EventPicture.SNAPSHOT));
        router.get("/api/events/:id/crop.jpg").handler(rc -> r.picture(rc, EventPicture.CROP));
        router.get("/api/events/:id").handler(rc -> {
            String id = PathIds.name(rc, "id", "event id", Names.DERIVED_MAX);
            if (id != null) answer(rc, events.event(id), WAIT_SECONDS, event -> event, 200);
        });
        // the MQTT output's state and counters; 404 when it is off
        router.get("/api/mqtt").handler(rc -> {
            if (mqtt == null) error(rc, 404, "the MQTT output is off (set mqtt.enabled: true in the config)");
            else answer(rc, mqtt.status(), WAIT_SECONDS, status -> status, 200);
        });
        router.get("/api/counts").handler(rc -> answer(rc, events.counts(rc.queryParams().get("camera")), WAIT_SECONDS,
                counts -> counts, 200));
    }

    /** The request body as a JSON list of zones or lines, or null after answering 400 with an example. */
    private static JsonArray array(RoutingContext rc, String kind) {
        String example = kind.equals("zones")
                ? "[{\"id\": \"porch\", \"polygon\": [[100, 400], [600, 400], [600, 700]], \"classes\": [\"person\"]}]"
                : "[{\"id\": \"gate\", \"from\": [50, 300], \"to\": [700, 300]}]";
        try {
            Buffer b = rc.body().buffer();
            if (b == null || b.length() == 0) throw new DecodeException("empty body");
            return new JsonArray(b);
        } catch (DecodeException | ClassCastException e) {
            error(rc, 400, "body: expected a JSON list of " + kind + " like " + example + " (" + e.getMessage() + ")");
            return null;
        }
    }

    /** A picture of an event's best snapshot: kept by the node that runs its camera (421 from this one: ask that node). */
    private void picture(RoutingContext rc, EventPicture kind) {
        String id = PathIds.name(rc, "id", "event id", Names.DERIVED_MAX);
        if (id == null) return;
        String camera;
        try {
            camera = ObjectEvent.cameraOf(id);
        } catch (IllegalArgumentException e) {
            error(rc, 400, e.getMessage());
            return;
        }
        events.picture(id, kind).timeout(WAIT_SECONDS, TimeUnit.SECONDS).onComplete(ar -> {
            int status = ar.failed() ? RequestRefused.statusOf(ar.cause()) : 200;
            if (ar.succeeded()) {
                rc.response().putHeader("content-type", "image/jpeg").putHeader("cache-control", "private, max-age=60")
                        .end(Buffer.buffer(ar.result()));
            } else if (owners != null && status == 421) {
                owners.pass(rc, SnapshotQuery.event(camera, id, kind), () -> error(rc, 404, ar.cause().getMessage()));
            } else if (status == 421) {
                error(rc, 404, ar.cause().getMessage());
            } else {
                failure(rc, ar.cause());
            }
        });
    }
}
