package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.action;
import static io.argus.pipeline.http.JsonReplies.error;
import static io.argus.pipeline.http.JsonReplies.failure;
import static io.argus.pipeline.http.JsonReplies.reply;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.cluster.SnapshotQuery;
import io.argus.pipeline.config.Names;
import io.argus.tracking.ObjectEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * REST for tracking (docs/tracking.md), each a request to this node's events verticle: a camera's zones and lines
 * ({@code GET/PUT /api/cameras/:id/zones}, {@code /lines}; 404 for a camera Argus does not know), events ({@code /api/events} paged and filtered, one
 * event, its best snapshot), counts ({@code /api/counts}) and the MQTT output's state ({@code /api/mqtt}). Zones, lines, events and counts are cluster-wide,
 * so any node answers; a best snapshot lives on the node that runs the camera and is asked of it over the event bus.
 */
final class EventRoutes {
    private final Vertx vertx;
    private final OwnerSnapshots owners;

    private EventRoutes(Vertx vertx, OwnerSnapshots owners) {
        this.vertx = vertx;
        this.owners = owners;
    }

    /** {@code owners}: null on a single node. */
    static void mount(Router router, Vertx vertx, OwnerSnapshots owners) {
        EventRoutes r = new EventRoutes(vertx, owners);
        for (String kind : new String[]{"zones", "lines"}) {
            router.get("/api/cameras/:id/" + kind).handler(rc -> {
                String camera = PathIds.name(rc, "id", "camera id");
                if (camera != null) r.ask(rc, action("get-rules").put("camera", camera).put("part", kind));
            });
            router.put("/api/cameras/:id/" + kind).handler(rc -> {
                String camera = PathIds.name(rc, "id", "camera id");
                JsonArray body = camera != null ? array(rc, kind) : null;
                if (body != null) r.ask(rc, action("set-rules").put("camera", camera).put("part", kind).put("rules", body));
            });
        }
        router.get("/api/events").handler(rc -> {
            JsonObject q = action("events");
            for (String p : new String[]{"camera", "zone", "line", "class", "after", "before", "offset", "limit"}) {
                String v = rc.queryParams().get(p);
                if (v != null) q.put(p, v);
            }
            r.ask(rc, q);
        });
        router.get("/api/events/:id/snapshot.jpg").handler(r::snapshot);
        router.get("/api/events/:id").handler(rc -> {
            String id = PathIds.name(rc, "id", "event id", Names.DERIVED_MAX);
            if (id != null) r.ask(rc, action("event").put("id", id));
        });
        router.get("/api/mqtt").handler(r::mqtt);
        router.get("/api/counts").handler(rc -> {
            JsonObject q = action("counts");
            String camera = rc.queryParams().get("camera");
            if (camera != null) q.put("camera", camera);
            r.ask(rc, q);
        });
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

    /** An event's best snapshot: kept by the node that runs its camera (421 from this one: ask that node). */
    private void snapshot(RoutingContext rc) {
        String id = PathIds.name(rc, "id", "event id", Names.DERIVED_MAX);
        if (id == null) return;
        String camera;
        try {
            camera = ObjectEvent.cameraOf(id);
        } catch (IllegalArgumentException e) {
            error(rc, 400, e.getMessage());
            return;
        }
        vertx.eventBus().<Buffer>request(Addresses.EVENTS_CONTROL, action("snapshot").put("id", id)).onComplete(ar -> {
            if (ar.succeeded()) {
                rc.response().putHeader("content-type", "image/jpeg").putHeader("cache-control", "private, max-age=60")
                        .end(ar.result().body());
            } else if (owners != null && ar.cause() instanceof ReplyException re && re.failureCode() == 421) {
                owners.pass(rc, SnapshotQuery.event(camera, id), () -> error(rc, 404, ar.cause().getMessage()));
            } else if (ar.cause() instanceof ReplyException re && re.failureCode() == 421) {
                error(rc, 404, ar.cause().getMessage());
            } else {
                failure(rc, ar.cause());
            }
        });
    }

    /** The MQTT output's state and counters; 404 when it is off (nobody answers the address). */
    private void mqtt(RoutingContext rc) {
        vertx.eventBus().<JsonObject>request(Addresses.MQTT_CONTROL, new JsonObject()).onComplete(ar -> {
            if (ar.succeeded()) {
                rc.response().putHeader("content-type", "application/json").end(ar.result().body().encode());
            } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
                error(rc, 404, "the MQTT output is off (set mqtt.enabled: true in the config)");
            } else {
                failure(rc, ar.cause());
            }
        });
    }

    private void ask(RoutingContext rc, JsonObject request) {
        vertx.eventBus().request(Addresses.EVENTS_CONTROL, request).onComplete(ar -> {
            if (ar.succeeded()) reply(rc, ar.result().body(), 200);
            else failure(rc, ar.cause());
        });
    }
}
