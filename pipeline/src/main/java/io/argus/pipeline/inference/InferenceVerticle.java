package io.argus.pipeline.inference;

import io.argus.pipeline.app.Addresses;
import io.argus.pipeline.app.ArgusMetrics;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.publish.Snapshots;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One model: the batcher (a local consumer of {@code argus.frames.<model>} feeding {@link LatestFrames}) and its
 * inference thread ({@link InferenceWorker}). Deployment completes once the model is loaded and the detector open,
 * or fails with the reason.
 */
public final class InferenceVerticle extends VerticleBase {
    private final ModelConfig config;
    private final Snapshots snapshots;
    private final ArgusMetrics metrics;
    private final ModelStats stats = new ModelStats();
    private final Map<String, ArgusMetrics.Group> cameraMeters = new ConcurrentHashMap<>();
    private final Map<String, Timer> latencies = new ConcurrentHashMap<>();
    private LatestFrames queue;
    private Thread thread;
    private ArgusMetrics.Group meters;
    private MessageConsumer<VideoFrame> frames;
    private MessageConsumer<JsonObject> cameraEvents;
    private volatile LoadedModel model;

    public InferenceVerticle(ModelConfig config, Snapshots snapshots, ArgusMetrics metrics) {
        this.config = config;
        this.snapshots = snapshots;
        this.metrics = metrics;
    }

    @Override
    public Future<?> start() {
        queue = new LatestFrames(config.maxBatch(), config.maxWaitMs());
        meters = metrics.group();
        metrics.queueDepth(meters, "batcher", config.id(), queue::depth);
        Promise<Void> ready = Promise.promise();
        InferenceWorker worker = new InferenceWorker(config, queue, vertx.eventBus(), snapshots, stats,
                outcome -> context.runOnContext(v -> {
                    if (outcome instanceof LoadedModel m) {
                        model = m;
                        ready.complete();
                    } else {
                        ready.fail((Throwable) outcome);
                    }
                }),
                this::latency, metrics.batchSize(meters, config.id(), config.maxBatch()),
                metrics.inference(meters, config.id()), metrics.detections(meters, config.id()));
        thread = new Thread(worker, "argus-inference-" + config.id());
        thread.setDaemon(true);
        thread.start();
        return ready.future().onFailure(e -> meters.close()).compose(v -> {
            frames = vertx.eventBus().localConsumer(Addresses.frames(config.id()), m -> queue.offer(m.body()));
            cameraEvents = vertx.eventBus().localConsumer(Addresses.CAMERA_EVENTS, m -> {
                if ("removed".equals(m.body().getString("event"))) forgetCamera(m.body().getString("id"));
            });
            return Future.succeededFuture();
        });
    }

    @Override
    public Future<?> stop() {
        if (frames != null) frames.unregister();
        if (cameraEvents != null) cameraEvents.unregister();
        queue.close();
        meters.close();
        cameraMeters.values().forEach(ArgusMetrics.Group::close);
        Thread t = thread;
        return vertx.executeBlocking(() -> {
            t.join(10_000);
            return null;
        });
    }

    private Timer latency(String camera) {
        return latencies.computeIfAbsent(camera, c -> {
            ArgusMetrics.Group g = metrics.group();
            cameraMeters.put(c, g);
            return metrics.latency(g, c);
        });
    }

    private void forgetCamera(String camera) {
        latencies.remove(camera);
        ArgusMetrics.Group g = cameraMeters.remove(camera);
        if (g != null) g.close();
        snapshots.forget(camera);
    }

    public String id() { return config.id(); }

    public ModelStats stats() { return stats; }

    public LatestFrames queue() { return queue; }

    public JsonObject status() {
        LoadedModel m = model;
        JsonObject j = m != null ? m.toJson() : new JsonObject().put("id", config.id());
        return j.put("backendRequested", config.backend().name().toLowerCase(java.util.Locale.ROOT)).put("queueDepth", queue.depth())
                .put("stats", stats.toJson());
    }
}
