package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.action;
import static io.argus.pipeline.http.JsonReplies.error;
import static io.argus.pipeline.http.JsonReplies.failure;
import static io.argus.pipeline.http.JsonReplies.reply;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.training.ModelRegistry;
import io.argus.pipeline.training.RequestRefused;
import io.argus.pipeline.training.WeightsUpload;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * REST for online training (docs/online-training.md), each a request to the verticle that owns the thing:
 * collected frames and their labels ({@code /api/training/frames...}, {@code /api/training/dataset}) to the dataset
 * verticle, runs ({@code /api/training}, {@code /api/training/runs...}) to the trainer, versions and rollback
 * ({@code /api/models/:id/versions}, {@code POST /api/models/:id/rollback}) to the model registry. With training off
 * they answer 404 saying so. Every id in a path or body is checked here first (a name, a version id, a run number):
 * 400 naming the field. No route takes a server path: weights are adopted from the request body
 * ({@link #mountUpload}) or by the name of a file in the configured import directory.
 */
final class TrainingRoutes {
    /** A rollback or a swap may load a large model. */
    private static final DeliveryOptions LONG = new DeliveryOptions().setSendTimeout(300_000);

    private final Vertx vertx;

    private TrainingRoutes(Vertx vertx) {
        this.vertx = vertx;
    }

    /**
     * {@code POST /api/models/:id/versions} with the weights as the body ({@code application/octet-stream}): mounted
     * before {@code /api}'s 64 KB body limit, since weights are megabytes; streamed to disk and hashed as they arrive
     * ({@link WeightsUpload}), then adopted as a version and swapped in. Other content types go on to the JSON route.
     */
    static void mountUpload(Router router, Vertx vertx) {
        TrainingRoutes t = new TrainingRoutes(vertx);
        router.post("/api/models/:id/versions").consumes("application/octet-stream").handler(t::upload);
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
            if (split != null) {
                if (!split.equals("train") && !split.equals("val")) {
                    error(rc, 400, "split: expected train or val, found " + Names.quoted(split));
                    return;
                }
                q.put("split", split);
            }
            if (labeled != null) {
                if (!labeled.equals("true") && !labeled.equals("false")) {
                    error(rc, 400, "labeled: expected true or false, found " + Names.quoted(labeled));
                    return;
                }
                q.put("labeled", Boolean.parseBoolean(labeled));
            }
            if (limit != null) {
                if (!limit.matches("[0-9]{1,7}")) {
                    error(rc, 400, "limit: expected a number of frames (0-9999999), found " + Names.quoted(limit));
                    return;
                }
                q.put("limit", Integer.parseInt(limit));
            }
            t.ask(rc, Addresses.DATASET_CONTROL, q, 200);
        });
        router.post("/api/training/frames").handler(rc -> {
            JsonObject body = body(rc, "{\"camera\": \"cam1\"}");
            if (body == null) return;
            Object camera = body.getValue("camera");
            if (!(camera instanceof String c) || !Names.valid(c)) {
                error(rc, 400, "camera: " + Names.expectation(Names.MAX) + ", found "
                        + (camera instanceof String c ? Names.quoted(c) : camera == null ? "nothing" : "a " + kind(camera)));
                return;
            }
            // the caller's address: capture requests waiting for a frame are capped per client
            t.ask(rc, Addresses.DATASET_CONTROL, action("capture").put("camera", c).put("client", client(rc)), 201);
        });
        router.get("/api/training/frames/:id").handler(rc -> t.frame(rc, "get", 200));
        router.get("/api/training/frames/:id/image").handler(t::image);
        router.put("/api/training/frames/:id/labels").handler(rc -> {
            String id = frameId(rc);
            if (id == null) return;
            JsonObject body = body(rc, "{\"labels\": [{\"className\": \"star\", \"box\": {\"x\": 10, \"y\": 20, \"w\": 30, \"h\": 30}}]}");
            if (body != null) t.ask(rc, Addresses.DATASET_CONTROL, action("labels").put("id", id).put("body", body), 200);
        });
        router.delete("/api/training/frames/:id").handler(rc -> t.frame(rc, "delete", 200));
        router.get("/api/training/runs").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("runs"), 200));
        router.post("/api/training/runs").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("start"), 202));
        router.get("/api/training/runs/:id").handler(rc -> {
            String id = rc.pathParam("id");
            if (id == null || !id.matches("[0-9]{1,9}")) {
                error(rc, 400, "run id: expected a run number (1-9 digits), found " + Names.quoted(id));
                return;
            }
            t.ask(rc, Addresses.TRAINING_CONTROL, action("run").put("id", Integer.parseInt(id)), 200);
        });
        router.post("/api/training/runs/cancel").handler(rc -> t.ask(rc, Addresses.TRAINING_CONTROL, action("cancel"), 200));
        router.get("/api/models/:id/versions").handler(rc -> {
            String model = modelId(rc);
            if (model != null) t.ask(rc, Addresses.REGISTRY_CONTROL, action("versions").put("model", model), 200);
        });
        router.post("/api/models/:id/rollback").handler(rc -> {
            String model = modelId(rc);
            if (model != null) t.ask(rc, Addresses.REGISTRY_CONTROL, action("rollback").put("model", model), 200);
        });
        // an operator promotes weights trained elsewhere, named in training.importDir (the weights themselves as the
        // body: mountUpload); in a cluster every node follows
        router.post("/api/models/:id/versions").handler(rc -> {
            String model = modelId(rc);
            if (model == null) return;
            JsonObject body = body(rc, "{\"file\": \"better.weights\"} (a file in training.importDir), or the weights"
                    + " themselves with content-type: application/octet-stream");
            if (body == null) return;
            Object file = body.getValue("file");
            if (!(file instanceof String f)) {
                error(rc, 400, "file: expected the name of a file in training.importDir, found "
                        + (file == null ? "nothing" : "a " + kind(file)) + " (or send the weights themselves as the body,"
                        + " content-type: application/octet-stream)");
                return;
            }
            t.ask(rc, Addresses.REGISTRY_CONTROL, action("import").put("model", model).put("file", f), 200);
        });
        // a kept version's weights: how the other nodes of a cluster fetch a promoted version (by its hash)
        router.get("/api/models/:id/versions/:version/weights").handler(rc -> {
            String model = modelId(rc);
            if (model == null) return;
            String version;
            try {
                version = ModelRegistry.requireVersion("version", rc.pathParam("version"));
            } catch (IllegalArgumentException e) {
                error(rc, 400, e.getMessage());
                return;
            }
            vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, action("weights").put("model", model).put("version", version))
                    .onSuccess(m -> rc.response().putHeader("content-type", "application/octet-stream").sendFile(m.body().getString("file")))
                    .onFailure(e -> fail(rc, e));
        });
    }

    /** The path's model id, or null after answering 400. */
    private static String modelId(RoutingContext rc) { return checked(rc, "model id", rc.pathParam("id"), Names.MAX); }

    /** The path's frame id, or null after answering 400. */
    private static String frameId(RoutingContext rc) { return checked(rc, "frame id", rc.pathParam("id"), Names.DERIVED_MAX); }

    private static String checked(RoutingContext rc, String what, String value, int max) {
        if (Names.valid(value, max)) return value;
        error(rc, 400, what + ": " + Names.expectation(max) + ", found " + Names.quoted(value));
        return null;
    }

    /** The address a request comes from (capture requests are capped per address). */
    private static String client(RoutingContext rc) {
        var a = rc.request().remoteAddress();
        return a != null && a.host() != null ? a.host() : "unknown";
    }

    private static String kind(Object v) {
        return v instanceof Number ? "number" : v instanceof Boolean ? "boolean" : v instanceof JsonObject ? "object"
                : v instanceof io.vertx.core.json.JsonArray ? "list" : v.getClass().getSimpleName();
    }

    private void frame(RoutingContext rc, String action, int okStatus) {
        String id = frameId(rc);
        if (id != null) ask(rc, Addresses.DATASET_CONTROL, action(action).put("id", id), okStatus);
    }

    /**
     * The weights as the body: the registry stages a file for them, they are streamed into it and hashed, then the
     * registry checks and adopts them. A refused or broken upload is answered at once, its staged file discarded and
     * the connection closed (the rest of the body is never read).
     */
    private void upload(RoutingContext rc) {
        HttpServerRequest request = rc.request();
        request.pause(); // not a byte is lost while the registry stages the file
        String model = modelId(rc);
        if (model == null) {
            closeAfter(rc);
            return;
        }
        vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, action("upload").put("model", model))
                .onFailure(e -> {
                    fail(rc, e);
                    closeAfter(rc);
                })
                .onSuccess(m -> {
                    JsonObject ticket = m.body();
                    WeightsUpload.receive(vertx, request, ticket)
                            .compose(received -> vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL,
                                    action("adopt-upload").put("model", model).put("ticket", ticket.getString("ticket"))
                                            .put("sha256", received.sha256()).put("bytes", received.bytes())
                                            .put("origin", "operator"), LONG))
                            .onSuccess(r -> reply(rc, r.body(), 200))
                            .onFailure(e -> {
                                vertx.eventBus().request(Addresses.REGISTRY_CONTROL, action("discard").put("model", model)
                                        .put("ticket", ticket.getString("ticket")));
                                if (e instanceof RequestRefused r) error(rc, r.status(), r.getMessage());
                                else fail(rc, e);
                                closeAfter(rc);
                            });
                });
    }

    /** A request whose body was not read to its end: the connection goes once the answer is out. */
    private static void closeAfter(RoutingContext rc) {
        HttpServerRequest request = rc.request();
        if (request.isEnded()) return;
        if (rc.response().ended()) request.connection().close();
        else rc.response().endHandler(v -> request.connection().close());
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
        String id = frameId(rc);
        if (id == null) return;
        vertx.eventBus().<JsonObject>request(Addresses.DATASET_CONTROL, action("image").put("id", id))
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
