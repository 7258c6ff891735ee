package io.argus.pipeline.inference;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.CameraNotice;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.publish.Provenance;
import io.argus.pipeline.publish.Snapshots;
import io.argus.tracking.TrackerSettings;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.noop.NoopTimer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One model: the batcher (a local consumer of {@code argus.frames.<model>} feeding {@link LatestFrames}) and its
 * inference thread ({@link InferenceWorker}). Deployment completes once the model is loaded and the detector open,
 * or fails with the reason.
 *
 * <p>It is the model's {@link ModelControl}: its status, and a swap, which loads the weights and opens a detector on
 * a thread of its own while the old one keeps serving, then has the inference thread switch between two batches; the
 * swap completes once the new version serves.
 */
public final class InferenceVerticle extends VerticleBase implements ModelControl {
    /** How long a removed camera's frames may still come out of the batcher (far more than a batch takes). */
    private static final long LATE_FRAMES_MS = 5_000;
    /** Where the latency of a removed camera's late frames goes: nowhere. */
    private static final Timer UNRECORDED = new NoopTimer(new Meter.Id("argus.latency", Tags.empty(), null, null, Meter.Type.TIMER));
    private final ModelConfig config;
    private final Snapshots snapshots;
    private final ArgusMetrics metrics;
    private final StartupProgress progress;
    private final Provenance provenance;
    private final ModelStats stats = new ModelStats();
    private final Map<String, ArgusMetrics.Group> cameraMeters = new ConcurrentHashMap<>();
    private final Map<String, Timer> latencies = new ConcurrentHashMap<>();
    /** Cameras removed less than {@link #LATE_FRAMES_MS} ago. */
    private final Set<String> justRemoved = ConcurrentHashMap.newKeySet();
    private LatestFrames queue;
    private Thread thread;
    /**
     * Where a hot swap loads, opens and warms up the next detector: always the same thread. On Vert.x's shared worker
     * pool each swap tended to land on a thread not used before (the pool starts a new thread per task until it holds
     * 20), and every new thread that runs oneDNN gets an OpenMP team of its own and a glibc malloc arena of its own,
     * both kept for the thread's life: the soak (docs/reliability.md) measured +2 threads and 40-60 MiB RSS per
     * swap. One thread makes that a one-time cost.
     */
    private java.util.concurrent.ExecutorService swapThread;
    private ArgusMetrics.Group meters;
    private MessageConsumer<VideoFrame> frames;
    private MessageConsumer<JsonObject> cameraEvents;
    private InferenceWorker worker;
    private final CameraTracks tracks;
    private ModelEngine.Opener engines = ModelEngine::open;

    public InferenceVerticle(ModelConfig config, Snapshots snapshots, ArgusMetrics metrics) {
        this(config, snapshots, metrics, StartupProgress.NONE);
    }

    /** {@code progress}: told about loading and warming up the model at start. */
    public InferenceVerticle(ModelConfig config, Snapshots snapshots, ArgusMetrics metrics, StartupProgress progress) {
        this(config, snapshots, metrics, progress, Provenance.STANDALONE);
    }

    /** {@code provenance}: in a cluster, which cameras this node may publish for, and the stamp of their messages. */
    public InferenceVerticle(ModelConfig config, Snapshots snapshots, ArgusMetrics metrics, StartupProgress progress,
                             Provenance provenance) {
        this(config, snapshots, metrics, progress, provenance, TrackerSettings.DEFAULTS);
    }

    /** {@code tracker}: how the cameras of this model are tracked (docs/tracking.md); null: not tracked. */
    public InferenceVerticle(ModelConfig config, Snapshots snapshots, ArgusMetrics metrics, StartupProgress progress,
                             Provenance provenance, TrackerSettings tracker) {
        this.tracks = new CameraTracks(tracker);
        this.provenance = provenance;
        this.config = config;
        this.snapshots = snapshots;
        this.metrics = metrics;
        this.progress = progress;
    }

    @Override
    public Future<?> start() {
        queue = new LatestFrames(config.maxBatch(), config.maxWaitMs());
        meters = metrics.group();
        metrics.queueDepth(meters, "batcher", config.id(), queue::depth);
        metrics.gauge(meters, "argus.inference.gpus", "GPUs taking this model's batches (0: one detector, not "
                + "several GPUs)", stats::liveGpus, "model", config.id());
        metrics.gauge(meters, "argus.inference.gpus.removed", "GPUs taken out of this model after a CUDA error",
                stats::removedGpus, "model", config.id());
        Promise<Void> ready = Promise.promise();
        worker = new InferenceWorker(config, queue, vertx.eventBus(), snapshots, stats, progress,
                outcome -> context.runOnContext(v -> {
                    if (outcome instanceof LoadedModel) {
                        ready.complete();
                    } else {
                        ready.fail((Throwable) outcome);
                    }
                }),
                this::latency, metrics.batchSize(meters, config.id(), config.maxBatch()),
                metrics.inference(meters, config.id()), metrics.detections(meters, config.id()), provenance, tracks,
                engines);
        swapThread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "argus-swap-" + config.id());
            t.setDaemon(true);
            return t;
        });
        thread = new Thread(worker, "argus-inference-" + config.id());
        thread.setDaemon(true);
        thread.start();
        return ready.future().onFailure(e -> meters.close()).compose(v -> {
            frames = vertx.eventBus().localConsumer(Addresses.frames(config.id()), m -> queue.offer(m.body()));
            cameraEvents = vertx.eventBus().localConsumer(Addresses.CAMERA_EVENTS, m -> {
                CameraNotice notice = CameraNotice.from(m.body());
                String id = notice.camera();
                if (notice.change() == CameraNotice.Change.REMOVED) {
                    // its last frames may still be in the batcher: they must not bring its latency series back
                    justRemoved.add(id);
                    forgetCamera(id);
                    vertx.setTimer(LATE_FRAMES_MS, t -> {
                        if (justRemoved.remove(id)) forgetLatency(id);
                    });
                } else {
                    justRemoved.remove(id); // added again
                }
            });
            return Future.succeededFuture();
        });
    }

    @Override
    public Future<?> stop() {
        if (frames != null) frames.unregister();
        if (cameraEvents != null) cameraEvents.unregister();
        queue.close();
        if (swapThread != null) swapThread.shutdown();
        meters.close();
        cameraMeters.values().forEach(ArgusMetrics.Group::close);
        Thread t = thread;
        return vertx.executeBlocking(() -> {
            t.join(10_000);
            return null;
        });
    }

    private void forgetLatency(String camera) {
        latencies.remove(camera);
        ArgusMetrics.Group g = cameraMeters.remove(camera);
        if (g != null) g.close();
    }

    private Timer latency(String camera) {
        if (justRemoved.contains(camera)) return UNRECORDED;
        return latencies.computeIfAbsent(camera, c -> {
            ArgusMetrics.Group g = metrics.group();
            cameraMeters.put(c, g);
            return metrics.latency(g, c);
        });
    }

    private void forgetCamera(String camera) {
        forgetLatency(camera);
        snapshots.forget(camera);
        tracks.forget(camera);
    }

    /**
     * Loads {@code weights} beside the serving model (a thread of its own), then has the inference thread switch to
     * it between two batches; completes once it serves.
     */
    @Override
    public Future<Swapped> swap(Path weights, String version) {
        return ServiceCall.on(context, () -> {
            if (weights == null) throw new IllegalArgumentException("swap: \"weights\" (a .weights file) is required");
            return load(weights, version)
                    .compose(s -> Future.fromCompletionStage(worker.swap(s), context)
                            .map(replaced -> new Swapped(config.id(), s.model().version(), replaced.version())))
                    .recover(e -> Future.failedFuture(e instanceof IllegalArgumentException || e instanceof RequestRefused
                            ? e : new RequestRefused(409, e.getMessage(), e)));
        });
    }

    /** The weights loaded into a detector, opened and warmed up on the swap thread, while the old one serves. */
    private Future<InferenceWorker.Serving> load(Path weights, String version) {
        Promise<InferenceWorker.Serving> promise = Promise.promise();
        io.vertx.core.Context ctx = context;
        try {
            swapThread.execute(() -> {
                try {
                    LoadedModel m = LoadedModel.load(config, weights, version);
                    ModelEngine engine = engines.open(m.model(), config);
                    try {
                        engine.warmUp(config.maxBatch(), worker.lastFrameWidth(), worker.lastFrameHeight());
                    } catch (RuntimeException e) {
                        engine.close();
                        throw e;
                    }
                    InferenceWorker.Serving s = new InferenceWorker.Serving(m, engine);
                    ctx.runOnContext(v -> promise.complete(s));
                } catch (Throwable e) {
                    ctx.runOnContext(v -> promise.fail(e));
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            promise.fail(new IllegalStateException("stopped"));
        }
        return promise.future();
    }

    /** Before deploying: how the model's engine is opened (tests: CPU backends standing in for GPUs). */
    InferenceVerticle withEngines(ModelEngine.Opener opener) {
        this.engines = opener;
        return this;
    }

    /** Shows every processed frame to {@code tap} (null: none). */
    public void tap(FrameTap tap) { worker.tap(tap); }

    /** The model serving now. */
    public LoadedModel serving() { return worker.serving(); }

    public ModelConfig modelConfig() { return config; }

    public String id() { return config.id(); }

    public ModelStats stats() { return stats; }

    public LatestFrames queue() { return queue; }

    @Override
    public Future<JsonObject> status() {
        return ServiceCall.on(context, () -> Future.succeededFuture(statusNow()));
    }

    /** {@link #status} from any thread: what the model's counters and the serving version say now. */
    public JsonObject statusNow() {
        LoadedModel m = worker != null ? worker.serving() : null;
        JsonObject j = m != null ? m.toJson() : new JsonObject().put("id", config.id());
        return j.put("backendRequested", config.backend().name().toLowerCase(java.util.Locale.ROOT))
                .put("cudaDevice", config.cuda().device()).put("cudaDevices", config.cudaDevices().toJson())
                .put("queueDepth", queue.depth())
                .put("stats", stats.toJson());
    }
}
