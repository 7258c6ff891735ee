package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.LONG_WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.answer;
import static io.argus.pipeline.http.JsonReplies.error;
import static io.argus.pipeline.http.JsonReplies.failure;

import io.argus.pipeline.config.Names;
import io.argus.pipeline.training.CollectedFrame;
import io.argus.pipeline.training.DatasetService;
import io.argus.pipeline.training.ModelRegistry;
import io.argus.pipeline.training.ModelRegistryService;
import io.argus.pipeline.training.RunRecord;
import io.argus.pipeline.training.TrainingService;
import io.argus.pipeline.training.VersionChange;
import io.argus.pipeline.training.WeightsUpload;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * REST for online training (docs/online-training.md), each a call to the service that owns the thing: collected
 * frames and their labels ({@code /api/training/frames...}, {@code /api/training/dataset}) to the
 * {@link DatasetService}, runs ({@code /api/training}, {@code /api/training/runs...}) to the {@link TrainingService},
 * versions and rollback ({@code /api/models/:id/versions}, {@code POST /api/models/:id/rollback}) to the
 * {@link ModelRegistryService}. With training off they answer 404 saying so. Every id in a path or body is checked
 * here first (a name, a version id, a run number): 400 naming the field. No route takes a server path: weights are
 * adopted from the request body ({@link #mountUpload}) or by the name of a file in the configured import directory.
 */
final class TrainingRoutes {
    private static final String OFF = "online training is off (set training.enabled: true in the config)";

    private final Vertx vertx;
    private final DatasetService dataset;
    private final TrainingService training;
    private final ModelRegistryService registry;

    /** The services: all null with online training off. */
    private TrainingRoutes(Vertx vertx, DatasetService dataset, TrainingService training, ModelRegistryService registry) {
        this.vertx = vertx;
        this.dataset = dataset;
        this.training = training;
        this.registry = registry;
    }

    /**
     * {@code POST /api/models/:id/versions} with the weights as the body ({@code application/octet-stream}): mounted
     * before {@code /api}'s 64 KB body limit, since weights are megabytes; streamed to disk and hashed as they arrive
     * ({@link WeightsUpload}), then adopted as a version and swapped in. Other content types go on to the JSON route.
     */
    static void mountUpload(Router router, Vertx vertx, ModelRegistryService registry) {
        TrainingRoutes t = new TrainingRoutes(vertx, null, null, registry);
        router.post("/api/models/:id/versions").consumes("application/octet-stream").handler(t::upload);
    }

    static void mount(Router router, Vertx vertx, DatasetService dataset, TrainingService training,
                      ModelRegistryService registry) {
        TrainingRoutes t = new TrainingRoutes(vertx, dataset, training, registry);
        router.get("/api/training").handler(rc -> t.training(rc, s -> answer(rc, s.status(), WAIT_SECONDS, st -> st.toJson(), 200)));
        router.get("/api/training/dataset").handler(rc -> t.dataset(rc, d -> answer(rc, d.stats(), WAIT_SECONDS, st -> st.toJson(), 200)));
        router.get("/api/training/frames").handler(rc -> {
            String split = rc.queryParams().get("split");
            String labeled = rc.queryParams().get("labeled");
            String limit = rc.queryParams().get("limit");
            if (split != null && !split.equals(CollectedFrame.TRAIN) && !split.equals(CollectedFrame.VAL)) {
                error(rc, 400, "split: expected train or val, found " + Names.quoted(split));
                return;
            }
            if (labeled != null && !labeled.equals("true") && !labeled.equals("false")) {
                error(rc, 400, "labeled: expected true or false, found " + Names.quoted(labeled));
                return;
            }
            if (limit != null && !limit.matches("[0-9]{1,7}")) {
                error(rc, 400, "limit: expected a number of frames (0-9999999), found " + Names.quoted(limit));
                return;
            }
            t.dataset(rc, d -> answer(rc, d.frames(split, labeled != null ? Boolean.valueOf(labeled) : null,
                    limit != null ? Integer.parseInt(limit) : DatasetService.DEFAULT_LIMIT), WAIT_SECONDS,
                    TrainingRoutes::summaries, 200));
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
            t.dataset(rc, d -> answer(rc, d.capture(c, client(rc)), WAIT_SECONDS, CollectedFrame::toJson, 201));
        });
        router.get("/api/training/frames/:id").handler(rc -> {
            String id = frameId(rc);
            if (id != null) t.dataset(rc, d -> answer(rc, d.frame(id), WAIT_SECONDS, CollectedFrame::toJson, 200));
        });
        router.get("/api/training/frames/:id/image").handler(t::image);
        router.put("/api/training/frames/:id/labels").handler(rc -> {
            String id = frameId(rc);
            if (id == null) return;
            JsonObject body = body(rc, "{\"labels\": [{\"className\": \"star\", \"box\": {\"x\": 10, \"y\": 20, \"w\": 30, \"h\": 30}}]}");
            if (body != null) t.dataset(rc, d -> answer(rc, d.label(id, body), WAIT_SECONDS, CollectedFrame::toJson, 200));
        });
        router.delete("/api/training/frames/:id").handler(rc -> {
            String id = frameId(rc);
            if (id != null) t.dataset(rc, d -> answer(rc, d.delete(id), WAIT_SECONDS, v -> new JsonObject().put("deleted", id), 200));
        });
        router.get("/api/training/runs").handler(rc -> t.training(rc, s -> answer(rc, s.runs(Integer.MAX_VALUE), WAIT_SECONDS,
                TrainingRoutes::runs, 200)));
        router.post("/api/training/runs").handler(rc -> t.training(rc, s -> answer(rc, s.runNow(), LONG_WAIT_SECONDS,
                RunRecord::toJson, 202)));
        router.get("/api/training/runs/:id").handler(rc -> {
            String id = rc.pathParam("id");
            if (id == null || !id.matches("[0-9]{1,9}")) {
                error(rc, 400, "run id: expected a run number (1-9 digits), found " + Names.quoted(id));
                return;
            }
            t.training(rc, s -> answer(rc, s.run(Integer.parseInt(id)), WAIT_SECONDS, RunRecord::toJson, 200));
        });
        router.post("/api/training/runs/cancel").handler(rc -> t.training(rc, s -> answer(rc, s.cancel(), WAIT_SECONDS,
                RunRecord::toJson, 200)));
        router.get("/api/models/:id/versions").handler(rc -> t.registry(rc, r -> answer(rc, r.versions(), WAIT_SECONDS,
                v -> v.toJson(), 200)));
        router.post("/api/models/:id/rollback").handler(rc -> t.registry(rc, r -> answer(rc, r.rollback(), LONG_WAIT_SECONDS,
                VersionChange::toJson, 200)));
        // an operator promotes weights trained elsewhere, named in training.importDir (the weights themselves as the
        // body: mountUpload); in a cluster every node follows
        router.post("/api/models/:id/versions").handler(rc -> {
            if (modelId(rc) == null) return;
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
            t.registry(rc, r -> answer(rc, r.importFile(f), LONG_WAIT_SECONDS, VersionChange::toJson, 200));
        });
        // a kept version's weights: how the other nodes of a cluster fetch a promoted version (by its hash)
        router.get("/api/models/:id/versions/:version/weights").handler(rc -> {
            if (modelId(rc) == null) return;
            String version;
            try {
                version = ModelRegistry.requireVersion("version", rc.pathParam("version"));
            } catch (IllegalArgumentException e) {
                error(rc, 400, e.getMessage());
                return;
            }
            t.registry(rc, r -> r.weights(version).timeout(WAIT_SECONDS, TimeUnit.SECONDS)
                    .onSuccess(file -> rc.response().putHeader("content-type", "application/octet-stream").sendFile(file.toString()))
                    .onFailure(e -> failure(rc, e)));
        });
    }

    /** {@code use} the dataset, or 404 with online training off. */
    private void dataset(RoutingContext rc, Consumer<DatasetService> use) {
        if (dataset == null) error(rc, 404, OFF);
        else use.accept(dataset);
    }

    /** {@code use} the trainer, or 404 with online training off. */
    private void training(RoutingContext rc, Consumer<TrainingService> use) {
        if (training == null) error(rc, 404, OFF);
        else use.accept(training);
    }

    /**
     * {@code use} the registry of the path's model: 400 for a model id that is not a name, 404 with online training
     * off or for a model that does not learn online.
     */
    private void registry(RoutingContext rc, Consumer<ModelRegistryService> use) {
        String model = modelId(rc);
        if (model == null) return;
        if (registry == null) {
            error(rc, 404, OFF);
        } else if (!registry.model().equals(model)) {
            error(rc, 404, ModelRegistryService.noHistory(model, registry.model()));
        } else {
            use.accept(registry);
        }
    }

    private static JsonArray summaries(List<CollectedFrame> frames) {
        JsonArray out = new JsonArray();
        for (CollectedFrame f : frames) out.add(f.summary());
        return out;
    }

    private static JsonArray runs(List<RunRecord> runs) {
        JsonArray out = new JsonArray();
        for (RunRecord r : runs) out.add(r.toJson());
        return out;
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

    /**
     * The weights as the body: the registry stages a file for them, they are streamed into it and hashed, then the
     * registry checks and adopts them. A refused or broken upload is answered at once, its staged file discarded and
     * the connection closed (the rest of the body is never read).
     */
    private void upload(RoutingContext rc) {
        HttpServerRequest request = rc.request();
        request.pause(); // not a byte is lost while the registry stages the file
        String model = modelId(rc);
        if (model == null || registry == null || !registry.model().equals(model)) {
            if (model != null) error(rc, 404, registry == null ? OFF : ModelRegistryService.noHistory(model, registry.model()));
            closeAfter(rc);
            return;
        }
        registry.upload().timeout(WAIT_SECONDS, TimeUnit.SECONDS)
                .onFailure(e -> {
                    failure(rc, e);
                    closeAfter(rc);
                })
                .onSuccess(ticket -> WeightsUpload.receive(vertx, request, ticket)
                        .compose(received -> registry.adoptUpload(ticket.id(), received.sha256(), received.bytes())
                                .timeout(LONG_WAIT_SECONDS, TimeUnit.SECONDS))
                        .onSuccess(r -> JsonReplies.reply(rc, r.toJson(), 200))
                        .onFailure(e -> {
                            registry.discard(ticket.id());
                            failure(rc, e);
                            closeAfter(rc);
                        }));
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
        dataset(rc, d -> d.image(id).timeout(WAIT_SECONDS, TimeUnit.SECONDS)
                .onSuccess(file -> rc.response().putHeader("content-type", "image/png")
                        .putHeader("cache-control", "private, max-age=3600")
                        .sendFile(file.toString()))
                .onFailure(e -> failure(rc, e)));
    }
}
