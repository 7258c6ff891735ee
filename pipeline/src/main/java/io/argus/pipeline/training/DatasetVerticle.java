package io.argus.pipeline.training;

import io.argus.detector.Detection;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.CameraNotice;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
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
 * the {@link DatasetStore}. It is the {@link DatasetService}: frames listed, shown, labelled and deleted, a camera's
 * next frame captured (a camera of this model, on this node; the requests waiting for a frame are capped per client
 * and in all, {@link CaptureRequests}), counts, and for the trainer pin and unpin. Frame ids are names
 * ({@link Names}, up to {@link Names#DERIVED_MAX}). Publishes {@code frame-collected}, {@code labels-changed} and
 * {@code frame-deleted} on {@code argus.training.events}. All file work runs on one thread of its own; the event loop
 * never blocks.
 */
public final class DatasetVerticle extends VerticleBase implements DatasetService {
    private static final long CAPTURE_TIMEOUT_MS = 10_000;
    private static final System.Logger LOG = System.getLogger("argus.training.dataset");

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final Cameras cameras;
    // camera (one of this model's) to the requests waiting for its next frame; at most CaptureRequests.TOTAL in all
    private final Map<String, List<Promise<CollectedFrame>>> captures = new HashMap<>();
    private final CaptureRequests requests = new CaptureRequests();
    private BlockingLane lane;
    private DatasetStore store;          // used on the lane's thread only
    private FrameCollector collector;   // idem
    private Teacher teacher;            // idem
    private CollectorTap tap;
    private List<String> names;
    private MessageConsumer<JsonObject> cameraEvents;
    private boolean fullReported;

    /** {@code cameras}: this node's own cameras (a capture keeps a frame of a camera that runs here). */
    public DatasetVerticle(TrainingConfig config, InferenceVerticle model, Cameras cameras) {
        this.config = config;
        this.model = model;
        this.cameras = cameras;
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
                    cameraEvents = vertx.eventBus().localConsumer(Addresses.CAMERA_EVENTS,
                            m -> onCameraEvent(CameraNotice.from(m.body())));
                    LOG.log(Level.INFO, "dataset of " + config.model() + ": " + s.size() + " frames in " + s.dir());
                    return null;
                });
    }

    @Override
    public Future<?> stop() {
        model.tap(null);
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

    @Override
    public Future<List<CollectedFrame>> frames(String split, Boolean labeled, int limit) {
        return ServiceCall.on(context, () -> lane.run(() -> {
            List<CollectedFrame> out = new ArrayList<>();
            for (CollectedFrame f : store.frames()) {
                if (split != null && !split.equals(f.split())) continue;
                if (labeled != null && labeled != f.labeled()) continue;
                if (out.size() >= limit) break;
                out.add(f);
            }
            return List.copyOf(out);
        }));
    }

    @Override
    public Future<CollectedFrame> frame(String id) {
        return ServiceCall.on(context, () -> lane.run(() -> found(store.get(frameId(id)), id)));
    }

    @Override
    public Future<Path> image(String id) {
        return ServiceCall.on(context, () -> lane.run(() -> {
            found(store.get(frameId(id)), id);
            return store.image(id);
        }));
    }

    @Override
    public Future<CollectedFrame> label(String id, JsonObject annotations) {
        return ServiceCall.on(context, () -> lane.run(() -> {
            CollectedFrame f = found(store.get(frameId(id)), id);
            List<Detection> labels = Annotations.parse(annotations != null ? annotations : new JsonObject(), names,
                    f.width(), f.height());
            return store.label(id, labels, "annotation", System.currentTimeMillis());
        }).onSuccess(f -> publish("labels-changed", new JsonObject().put("frame", f.toJson().put("proposals", null)
                .put("labels", null)))));
    }

    @Override
    public Future<Void> delete(String id) {
        return ServiceCall.on(context, () -> lane.run(() -> {
            if (!store.delete(frameId(id))) throw RequestRefused.notFound("no collected frame \"" + id + "\"");
            return (Void) null;
        }).onSuccess(v -> publish("frame-deleted", new JsonObject().put("id", id))));
    }

    @Override
    public Future<CollectedFrame> capture(String camera, String client) {
        return ServiceCall.on(context, () -> captureHere(Names.require("camera", camera), client));
    }

    @Override
    public Future<DatasetStats> stats() {
        return ServiceCall.on(context, () -> lane.run(() -> store.stats())
                .map(s -> s.withCaptures(new DatasetStats.Captures(requests.pending(), tap.forcedCount()))));
    }

    @Override
    public Future<DatasetStore.Snapshot> pin() {
        return ServiceCall.on(context, () -> lane.run(() -> store.pin()));
    }

    @Override
    public Future<Void> unpin() {
        return ServiceCall.on(context, () -> lane.run(() -> {
            store.unpin();
            return null;
        }));
    }

    @Override
    public Future<Long> labelsRevision() {
        return ServiceCall.on(context, () -> lane.run(() -> store.labelsRevision()));
    }

    /**
     * Keeps {@code camera}'s next frame (see {@link #capture}); on the event loop. Nothing is kept for a request once
     * it has ended.
     */
    private Future<CollectedFrame> captureHere(String camera, String client) {
        requests.reserve(client);
        Promise<CollectedFrame> p = Promise.promise();
        p.future().onComplete(ar -> requests.release(client));
        cameras.get(camera)
                .onFailure(e -> p.tryFail(RequestRefused.statusOf(e) == 404
                        ? RequestRefused.notFound("camera: no camera \"" + camera + "\" runs on this node") : e))
                .onSuccess(status -> {
                    String feeds = status.model();
                    if (!config.model().equals(feeds)) {
                        p.tryFail(RequestRefused.notFound("camera: camera \"" + camera + "\" feeds model \"" + feeds
                                + "\"; online training collects frames for model \"" + config.model() + "\""));
                    } else if (!tap.captureNext(camera)) {
                        p.tryFail(new RequestRefused(429, "capture: " + CollectorTap.MAX_FORCED
                                + " cameras have capture requests waiting: try again when some have ended"));
                    } else {
                        wait(camera, p);
                    }
                });
        return p.future();
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
            p.tryFail(RequestRefused.conflict("no frame from camera \"" + camera + "\" reached model \"" + config.model()
                    + "\" within " + CAPTURE_TIMEOUT_MS / 1000 + " s (is it running and looked at by this model?)"));
        });
        p.future().onComplete(ar -> vertx.cancelTimer(timer));
    }

    /** A camera removed from this node: its waiting requests end (404) and the tap forgets it. */
    private void onCameraEvent(CameraNotice notice) {
        if (notice.change() != CameraNotice.Change.REMOVED) return;
        String camera = notice.camera();
        if (tap != null) tap.cameraGone(camera);
        List<Promise<CollectedFrame>> waiting = captures.remove(camera);
        if (waiting != null) {
            waiting.forEach(p -> p.tryFail(RequestRefused.notFound("camera: camera \"" + camera
                    + "\" was removed before a frame of it was kept")));
        }
    }

    private void publish(String event, JsonObject details) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, Addresses.TrainingEvent.of(event, config.model())
                .with(details).toJson());
    }

    /** {@code id}, checked to be a frame id (a name): 400 naming the field otherwise. */
    private static String frameId(String id) { return Names.require("frame id", id, Names.DERIVED_MAX); }

    private static CollectedFrame found(CollectedFrame f, String id) {
        if (f == null) throw RequestRefused.notFound("no collected frame \"" + id + "\"");
        return f;
    }
}
