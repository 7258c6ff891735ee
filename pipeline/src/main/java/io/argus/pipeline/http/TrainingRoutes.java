package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.action;
import static io.argus.pipeline.http.JsonReplies.error;
import static io.argus.pipeline.http.JsonReplies.failure;
import static io.argus.pipeline.http.JsonReplies.reply;

import io.argus.pipeline.app.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * REST for online training (docs/online-training.md), each a request to the verticle that owns the thing:
 * collected frames and their labels ({@code /api/training/frames...}, {@code /api/training/dataset}) to the dataset
 * verticle, runs ({@code /api/training}, {@code /api/training/runs...}) to the trainer, versions and rollback
 * ({@code /api/models/:id/versions}, {@code POST /api/models/:id/rollback}) to the model registry. With training off
 * they answer 404 saying so.
 */
final class TrainingRoutes {
    /** A rollback or a swap may load a large model. */
    private static final DeliveryOptions LONG = new DeliveryOptions().setSendTimeout(300_000);

    private final Vertx vertx;

    private TrainingRoutes(Vertx vertx) {
        this.vertx = vertx;
    }

    static void mount(Router router, Vertx vertx) {
        TrainingRoutes t = new TrainingRoutes(vertx);
        router.get("/api/training").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("status"), 200));
        router.get("/api/training/dataset").handler(rc -> t.ask(rc, Addresses.DATASET_CONTROL, action("stats"), 200));
        router.get("/api/training/frames").handler(rc -> {
            JsonObject q = action("frames");
            String split = rc.queryParams().get("split");
            String labeled = rc.queryParams().get("labeled");
            String limit = rc.queryParams().get("limit");
            if (split != null) q.put("split", split);
            if (labeled != null) q.put("labeled", Boolean.parseBoolean(labeled));
            if (limit != null) {
                try {
                    q.put("limit", Integer.parseInt(limit));
                } catch (NumberFormatException e) {
                    error(rc, 400, "limit: expected an integer, found \"" + limit + "\"");
                    return;
                }
            }
            t.ask(rc, Addresses.DATASET_CONTROL, q, 200);
        });
        router.post("/api/training/frames").handler(rc -> {
            JsonObject body = body(rc, "{\"camera\": \"cam1\"}");
            if (body != null) t.ask(rc, Addresses.DATASET_CONTROL, action("capture").put("camera", body.getString("camera")), 201);
        });
        router.get("/api/training/frames/:id").handler(rc -> t.ask(rc, Addresses.DATASET_CONTROL, action("get").put("id", rc.pathParam("id")), 200));
        router.get("/api/training/frames/:id/image").handler(t::image);
        router.put("/api/training/frames/:id/labels").handler(rc -> {
            JsonObject body = body(rc, "{\"labels\": [{\"className\": \"star\", \"box\": {\"x\": 10, \"y\": 20, \"w\": 30, \"h\": 30}}]}");
            if (body != null) {
                t.ask(rc, Addresses.DATASET_CONTROL, action("labels").put("id", rc.pathParam("id")).put("body", body), 200);
            }
        });
        router.delete("/api/training/frames/:id").handler(rc -> t.ask(rc, Addresses.DATASET_CONTROL, action("delete").put("id", rc.pathParam("id")), 200));
        router.get("/api/training/runs").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("runs"), 200));
        router.post("/api/training/runs").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("start"), 202));
        router.get("/api/training/runs/:id").handler(rc -> {
            try {
                t.ask(rc, Addresses.TRAINING_CONTROL, action("run").put("id", Integer.parseInt(rc.pathParam("id"))), 200);
            } catch (NumberFormatException e) {
                error(rc, 400, "run id: expected an integer, found \"" + rc.pathParam("id") + "\"");
            }
        });
        router.post("/api/training/runs/cancel").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("cancel"), 200));
        router.get("/api/models/:id/versions").handler(rc -> t.ask(rc, Addresses.REGISTRY_CONTROL,
                action("versions").put("model", rc.pathParam("id")), 200));
        router.post("/api/models/:id/rollback").handler(rc -> t.ask(rc, Addresses.REGISTRY_CONTROL,
                action("rollback").put("model", rc.pathParam("id")), 200));
        // an operator promotes weights trained elsewhere (a file on this node); in a cluster every node follows
        router.post("/api/models/:id/versions").handler(rc -> {
            JsonObject body = body(rc, "{\"file\": \"/var/lib/argus/better.weights\"}");
            if (body == null) return;
            if (body.getString("file") == null) {
                error(rc, 400, "body: \"file\" (a .weights file on this node) is required");
                return;
            }
            t.ask(rc, Addresses.REGISTRY_CONTROL, action("adopt").put("model", rc.pathParam("id"))
                    .put("file", body.getString("file")).put("origin", "operator"), 200);
        });
        // a kept version's weights: how the other nodes of a cluster fetch a promoted version (by its hash)
        router.get("/api/models/:id/versions/:version/weights").handler(rc -> vertx.eventBus().<JsonObject>request(
                        Addresses.REGISTRY_CONTROL, action("weights").put("model", rc.pathParam("id")).put("version", rc.pathParam("version")))
                .onSuccess(m -> rc.response().putHeader("content-type", "application/octet-stream").sendFile(m.body().getString("file")))
                .onFailure(e -> fail(rc, e)));
    }

    /** The request body as a JSON object, or null after answering 400 with an example. */
    private static JsonObject body(RoutingContext rc, String example) {
        try {
            Buffer b = rc.body().buffer();
            if (b == null || b.length() == 0) throw new DecodeException("empty body");
            return new JsonObject(b);
        } catch (DecodeException | ClassCastException e) {
            error(rc, 400, "body: expected a JSON object like " + example + " (" + e.getMessage() + ")");
            return null;
        }
    }

    private void image(RoutingContext rc) {
        vertx.eventBus().<JsonObject>request(Addresses.DATASET_CONTROL, action("image").put("id", rc.pathParam("id")))
                .onSuccess(m -> rc.response().putHeader("content-type", "image/png")
                        .putHeader("cache-control", "private, max-age=3600")
                        .sendFile(m.body().getString("file")))
                .onFailure(e -> fail(rc, e));
    }

    private void ask(RoutingContext rc, String address, JsonObject request, int okStatus) {
        vertx.eventBus().request(address, request, LONG).onComplete(ar -> {
            if (ar.succeeded()) {
                reply(rc, ar.result().body(), okStatus);
            } else {
                fail(rc, ar.cause());
            }
        });
    }

    private static void fail(RoutingContext rc, Throwable e) {
        if (e instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
            error(rc, 404, "online training is off (set training.enabled: true in the config)");
        } else {
            failure(rc, e);
        }
    }
}
