package io.argus.pipeline.camera;

import io.argus.detector.backends.Detector;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.FrameCodec;
import io.argus.pipeline.frames.FramePool;
import io.argus.recording.PacketSink;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;

/**
 * One camera: its reader thread, frame pool and stats. Decoded frames go, zero-copy, to its model's batcher on the
 * local event bus. A timer (on this verticle's event loop, never blocking) samples rates and runs the watchdog.
 */
public final class CameraVerticle extends VerticleBase {
    private final CameraConfig config;
    private final ModelConfig model;
    private final CameraUrl source;
    private final CameraSettings settings;
    private final ArgusMetrics metrics;
    private final PacketSink packets;
    private final CameraStats stats = new CameraStats();
    private FramePool pool;
    private CameraReader reader;
    private ArgusMetrics.Group meters;
    private long timer = -1;

    /**
     * {@code source}: the config's URL, or for {@code sample:} the resolved sample file; {@code packets}: where the
     * compressed video goes before decoding (the camera's recorder, or nowhere).
     */
    public CameraVerticle(CameraConfig config, ModelConfig model, CameraUrl source, CameraSettings settings,
                          ArgusMetrics metrics, PacketSink packets) {
        this.config = config;
        this.packets = packets;
        this.model = model;
        this.source = source;
        this.settings = settings;
        this.metrics = metrics;
    }

    @Override
    public Future<?> start() {
        // frames for a GPU in page-locked buffers: uploaded from where the decoder wrote them, without staging (the
        // pool asks whether CUDA is usable on its first allocation, on the reader's thread, not on this event loop)
        pool = new FramePool(settings.poolFrames(), settings.pinnedFrames() && model != null
                && model.backend() != Detector.Backend.CPU);
        String address = Addresses.frames(config.model());
        var bus = vertx.eventBus();
        reader = new CameraReader(config, model, source, settings, pool, stats, frame -> bus.send(address, frame, FrameCodec.LOCAL),
                packets);
        meters = CameraMeters.register(metrics, config.id(), stats);
        metrics.queueDepth(meters, "frame_pool_in_use", config.id(), pool::inUse);
        long[] lastSample = {System.nanoTime()};
        timer = vertx.setPeriodic(250, t -> {
            long now = System.nanoTime();
            reader.watchdog(now);
            if (now - lastSample[0] >= 1_000_000_000L) {
                stats.sample(now);
                lastSample[0] = now;
            }
        });
        reader.start();
        return Future.succeededFuture();
    }

    @Override
    public Future<?> stop() {
        if (timer >= 0) vertx.cancelTimer(timer);
        if (reader != null) reader.stop();
        if (pool != null) pool.close();   // frames still in flight are freed as they come back
        if (meters != null) meters.close();
        return Future.succeededFuture();
    }

    public String id() { return config.id(); }

    public CameraConfig camera() { return config; }

    public CameraStats stats() { return stats; }

    public FramePool pool() { return pool; }

    public void pause() { reader.pause(); }

    public void resume() { reader.resume(); }

    public JsonObject status() {
        return config.toJson().mergeIn(stats.toJson()).put("paused", reader != null && reader.paused())
                .put("readerThreads", reader != null ? reader.liveThreads() : 0);
    }
}
