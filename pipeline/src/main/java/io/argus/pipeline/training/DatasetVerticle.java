package io.argus.pipeline.training;

import io.argus.detector.Detection;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The online trainer's data: collects frames from the trained model's cameras (through a {@link CollectorTap} on its
 * inference thread and a {@link FrameCollector}), labels them with the teacher when there is one, and keeps them in
 * the {@link DatasetStore}. Answers {@code argus.control.dataset} requests ({@code {"action": ...}}): {@code frames}
 * ({@code split}, {@code labeled}, {@code limit}), {@code get}, {@code image}, {@code labels} (annotations of a
 * frame), {@code delete}, {@code capture} (keep a camera's next frame: a camera of this model, on this node; the
 * requests waiting for a frame are capped per client and in all, {@link CaptureRequests}), {@code stats}, and for the
 * trainer {@code pin} / {@code unpin}. Frame ids are names ({@link Names}, up to {@link Names#DERIVED_MAX}). Publishes {@code frame-collected}, {@code labels-changed} and {@code frame-deleted} on
 * {@code argus.training.events}. All file work runs on one thread of its own; the event loop never blocks.
 */
public final class DatasetVerticle extends VerticleBase {
    private static final long CAPTURE_TIMEOUT_MS = 10_000;
    private static final System.Logger LOG = System.getLogger("argus.training.dataset");

    private final TrainingConfig config;
    private final InferenceVerticle model;
    // camera (one of this model's) to the requests waiting for its next frame; at most CaptureRequests.TOTAL in all
    private final Map<String, List<Promise<CollectedFrame>>> captures = new HashMap<>();
    private final CaptureRequests requests = new CaptureRequests();
    private BlockingLane lane;
    private DatasetStore store;          // used on the lane's thread only
    private FrameCollector collector;   // idem
    private Teacher teacher;            // idem
    private CollectorTap tap;
    private List<String> names;
    private MessageConsumer<JsonObject> consumer;
    private MessageConsumer<JsonObject> cameraEvents;
    private boolean fullReported;

    public DatasetVerticle(TrainingConfig config, InferenceVerticle model) {
        this.config = config;
        this.model = model;
    }

    @Override
    public Future<?> start() {
        names = model.serving().model().names();
        lane = new BlockingLane("argus-dataset-" + config.model(), Thread.NORM_PRIORITY - 1, context);
        collector = new FrameCollector(config.collect().intervalMs(), config.collect().minSceneChange());
        if (config.teacher() != null) teacher = new Teacher(config.teacher(), names);
        return lane.run(() -> DatasetStore.open(config.modelDir().resolve("dataset"), names, config.collect().valEvery(),
                        config.collect().maxFrames()))
                .map(s -> {
                    store = s;
                    tap = new CollectorTap(config.collect().enabled(), config.collect().candidateIntervalMs(),
                            lane.executor(), this::collect);
                    model.tap(tap);
                    consumer = vertx.eventBus().localConsumer(Addresses.DATASET_CONTROL, this::handle);
                    cameraEvents = vertx.eventBus().localConsumer(Addresses.CAMERA_EVENTS, this::onCameraEvent);
                    LOG.log(Level.INFO, "dataset of " + config.model() + ": " + s.size() + " frames in " + s.dir());
                    return null;
                });
    }

    @Override
    public Future<?> stop() {
        model.tap(null);
        if (consumer != null) consumer.unregister();
        if (cameraEvents != null) cameraEvents.unregister();
        Future<Object> closed = lane.run(() -> {
            if (teacher != null) teacher.close();
            return null;
        });
        lane.close();
        return closed.otherwiseEmpty();
    }

    /** On the lane's thread: a candidate from the tap. */
    private void collect(FrameCollector.Candidate c) {
        FrameCollector.Candidate keep = collector.consider(c, System.currentTimeMillis());
        if (keep == null) return;
        CollectedFrame f;
        try {
            List<Detection> labels = teacher != null ? teacher.label(keep.image()) : null;
            f = store.add(keep.camera(), keep.frame(), keep.pts(), keep.captureTime(), keep.image(), keep.confidence(),
                    keep.servedBy(), keep.proposals(), labels);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not keep frame " + keep.frame() + " of " + keep.camera() + ": " + e);
            return;
        }
        if (f == null) {
            if (!fullReported) LOG.log(Level.WARNING, "dataset of " + config.model() + " is full of labelled frames ("
                    + config.collect().maxFrames() + "): raise training.collect.maxFrames or delete some");
            fullReported = true;
            return;
        }
        collector.kept(keep.camera());
        boolean forced = keep.forced();
        context.runOnContext(v -> {
            publish("frame-collected", new JsonObject().put("frame", f.summary()));
            if (forced) {
                List<Promise<CollectedFrame>> waiting = captures.remove(f.camera());
                if (waiting != null) waiting.forEach(p -> p.tryComplete(f));
            }
        });
    }

    private void handle(Message<JsonObject> msg) {
        JsonObject b = msg.body();
        String action = b.getString("action", "");
        String id = b.getString("id");
        Future<?> result;
        try {
            if (id != null) Names.require("frame id", id, Names.DERIVED_MAX);
            result = switch (action) {
                case "frames" -> lane.run(() -> list(b));
                case "get" -> lane.run(() -> found(store.get(id), id).toJson());
                case "image" -> lane.run(() -> {
                    found(store.get(id), id);
                    return new JsonObject().put("file", store.image(id).toString());
                });
                case "labels" -> labels(id, b);
                case "delete" -> lane.run(() -> {
                    if (!store.delete(id)) throw new NotFound("no collected frame \"" + id + "\"");
                    return new JsonObject().put("deleted", id);
                }).onSuccess(r -> publish("frame-deleted", new JsonObject().put("id", id)));
                case "capture" -> capture(b.getString("camera"), b.getString("client", "local"));
                case "stats" -> lane.run(() -> store.stats()).map(j -> j.put("captures", new JsonObject()
                        .put("waiting", requests.pending()).put("cameras", tap.forcedCount())));
                case "pin" -> lane.run(() -> {
                    DatasetStore.Snapshot s = store.pin();
                    return new JsonObject().put("train", paths(s.train())).put("val", paths(s.val()))
                            .put("valObjects", s.valObjects()).put("labelsRevision", s.labelsRevision());
                });
                case "unpin" -> lane.run(() -> {
                    store.unpin();
                    return new JsonObject();
                });
                case "revision" -> lane.run(() -> new JsonObject().put("labelsRevision", store.labelsRevision()));
                default -> Future.failedFuture(new IllegalArgumentException("unknown action \"" + action
                        + "\" (frames, get, image, labels, delete, capture, stats, pin, unpin, revision)"));
            };
        } catch (RuntimeException e) {
            result = Future.failedFuture(e);
        }
        result.onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result());
            else msg.fail(code(ar.cause()), ar.cause().getMessage());
        });
    }

    private JsonArray list(JsonObject b) {
        String split = b.getString("split");
        Boolean labeled = b.getBoolean("labeled");
        int limit = b.getInteger("limit", 200);
        JsonArray out = new JsonArray();
        for (CollectedFrame f : store.frames()) {
            if (split != null && !split.equals(f.split())) continue;
            if (labeled != null && labeled != f.labeled()) continue;
            if (out.size() >= limit) break;
            out.add(f.summary());
        }
        return out;
    }

    private Future<JsonObject> labels(String id, JsonObject b) {
        return lane.run(() -> {
            CollectedFrame f = found(store.get(id), id);
            List<Detection> labels = Annotations.parse(b.getJsonObject("body", new JsonObject()), names, f.width(), f.height());
            return store.label(id, labels, "annotation", System.currentTimeMillis()).toJson();
        }).onSuccess(j -> publish("labels-changed", new JsonObject().put("frame", j.copy().put("proposals", null).put("labels", null))));
    }

    /**
     * Keeps {@code camera}'s next frame: 400 for a camera id that is not a name, 404 for a camera that does not run
     * here or feeds another model, 429 when {@code client} (or everyone) has too many requests waiting, 409 when no
     * frame comes within 10 s. Nothing is kept for a request once it has ended.
     */
    private Future<JsonObject> capture(String camera, String client) {
        Names.require("camera", camera);
        requests.reserve(client);
        Promise<CollectedFrame> p = Promise.promise();
        p.future().onComplete(ar -> requests.release(client));
        vertx.eventBus().<JsonObject>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "get").put("id", camera))
                .onFailure(e -> p.tryFail(code(e) == 404 || e instanceof io.vertx.core.eventbus.ReplyException re
                        && re.failureType() == io.vertx.core.eventbus.ReplyFailure.NO_HANDLERS
                        ? new NotFound("camera: no camera \"" + camera + "\" runs on this node") : e))
                .onSuccess(m -> {
                    String feeds = m.body().getString("model");
                    if (!config.model().equals(feeds)) {
                        p.tryFail(new NotFound("camera: camera \"" + camera + "\" feeds model \"" + feeds
                                + "\"; online training collects frames for model \"" + config.model() + "\""));
                    } else if (!tap.captureNext(camera)) {
                        p.tryFail(new RequestRefused(429, "capture: " + CollectorTap.MAX_FORCED
                                + " cameras have capture requests waiting: try again when some have ended"));
                    } else {
                        wait(camera, p);
                    }
                });
        return p.future().map(CollectedFrame::toJson);
    }

    /** {@code p} waits for the next kept frame of {@code camera}, at most {@link #CAPTURE_TIMEOUT_MS}. */
    private void wait(String camera, Promise<CollectedFrame> p) {
        captures.computeIfAbsent(camera, k -> new ArrayList<>()).add(p);
        long timer = vertx.setTimer(CAPTURE_TIMEOUT_MS, t -> {
            List<Promise<CollectedFrame>> waiting = captures.get(camera);
            if (waiting != null && waiting.remove(p) && waiting.isEmpty()) {
                captures.remove(camera);
                tap.cancel(camera); // nobody waits: the tap keeps nothing for it
            }
            p.tryFail(new Conflict("no frame from camera \"" + camera + "\" reached model \"" + config.model()
                    + "\" within " + CAPTURE_TIMEOUT_MS / 1000 + " s (is it running and looked at by this model?)"));
        });
        p.future().onComplete(ar -> vertx.cancelTimer(timer));
    }

    /** A camera removed from this node: its waiting requests end (404) and the tap forgets it. */
    private void onCameraEvent(Message<JsonObject> m) {
        if (!"removed".equals(m.body().getString("event"))) return;
        String camera = m.body().getString("id");
        if (camera == null) return;
        if (tap != null) tap.cameraGone(camera);
        List<Promise<CollectedFrame>> waiting = captures.remove(camera);
        if (waiting != null) {
            waiting.forEach(p -> p.tryFail(new NotFound("camera: camera \"" + camera + "\" was removed before a frame of it was kept")));
        }
    }

    private void publish(String event, JsonObject body) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, body.put("type", "training").put("event", event)
                .put("model", config.model()));
    }

    private static JsonArray paths(List<Path> ps) {
        JsonArray a = new JsonArray();
        for (Path p : ps) a.add(p.toString());
        return a;
    }

    private static CollectedFrame found(CollectedFrame f, String id) {
        if (f == null) throw new NotFound("no collected frame \"" + id + "\"");
        return f;
    }

    static int code(Throwable e) {
        if (e instanceof io.vertx.core.eventbus.ReplyException re && re.failureCode() >= 400) return re.failureCode();
        if (e instanceof RequestRefused r) return r.status();
        if (e instanceof NotFound) return 404;
        if (e instanceof Conflict) return 409;
        if (e instanceof IllegalArgumentException) return 400;
        return 500;
    }

    /** A request for something that does not exist (404). */
    static final class NotFound extends RuntimeException {
        NotFound(String m) { super(m); }
    }

    /** A request that cannot be done now (409). */
    static final class Conflict extends RuntimeException {
        Conflict(String m) { super(m); }
    }
}
