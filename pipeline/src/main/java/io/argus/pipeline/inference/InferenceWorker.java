package io.argus.pipeline.inference;

import io.argus.detector.Detection;
import io.argus.detector.Picture;
import io.argus.detector.backends.Detector;
import io.argus.detector.nn.StageTimes;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.publish.DetectionMessage;
import io.argus.pipeline.publish.Provenance;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.video.NvdecPlacement;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The inference thread of one model: loads the model, owns its {@link ModelEngine} (a {@link Detector}, not
 * thread-safe: nobody else touches it; or one worker per GPU), takes batches from {@link LatestFrames}, detects,
 * publishes one message per frame on {@code argus.detections.<cameraId>}, offers frames to the snapshot encoder and
 * the {@link FrameTap}, releases them. With one detector all of that happens on this thread, batch after batch. With
 * several GPUs this thread only takes batches and hands them out, one per free GPU, and a publisher thread publishes
 * them in the order taken ({@link SeveralGpuDispatch}), so each camera's frames are still published and tracked in
 * order.
 *
 * <p><b>Hot swap.</b> {@link #swap} hands over a model loaded and a detector opened elsewhere (beside the serving
 * one); the worker switches between two batches: the batch in flight finishes on the old model, the next batch runs
 * on the new one. The queue is not touched, so no frame is dropped or processed twice because of the swap.
 */
final class InferenceWorker implements Runnable {
    /** A model and the engine running it. */
    record Serving(LoadedModel model, ModelEngine engine) {}

    /** A requested switch and its outcome: the model it replaced. */
    private record Swap(Serving next, CompletableFuture<LoadedModel> replaced) {}

    private final ModelConfig config;
    private final LatestFrames queue;
    private final EventBus bus;
    private final Snapshots snapshots;
    private final ModelStats stats;
    private final StartupProgress progress;
    private final Consumer<Object> onReady;          // the LoadedModel, or the Throwable that prevented it
    private final Function<String, Timer> latency;   // per camera
    private final DistributionSummary batchSize;
    private final Timer inference;
    private final Counter detections;
    private final Provenance provenance;
    private final CameraTracks tracks;
    private final System.Logger log;
    private final AtomicReference<Swap> pending = new AtomicReference<>();
    private volatile LoadedModel serving;
    private volatile FrameTap tap;
    private volatile boolean stopped;
    private volatile int lastWidth;
    private volatile int lastHeight;
    private SeveralGpuDispatch dispatch;   // made when a model first serves on several GPUs
    private final ModelEngine.Opener engines;
    private volatile String lastFailure;   // the last detect error logged, so a dead GPU set does not flood the log

    InferenceWorker(ModelConfig config, LatestFrames queue, EventBus bus, Snapshots snapshots, ModelStats stats,
                    StartupProgress progress, Consumer<Object> onReady, Function<String, Timer> latency, DistributionSummary batchSize,
                    Timer inference, Counter detections, Provenance provenance, CameraTracks tracks,
                    ModelEngine.Opener engines) {
        this.engines = engines;
        this.config = config;
        this.queue = queue;
        this.bus = bus;
        this.snapshots = snapshots;
        this.stats = stats;
        this.progress = progress;
        this.onReady = onReady;
        this.latency = latency;
        this.batchSize = batchSize;
        this.inference = inference;
        this.detections = detections;
        this.provenance = provenance;
        this.tracks = tracks;
        this.log = System.getLogger("argus.inference." + config.id());
    }

    @Override
    public void run() {
        LoadedModel model;
        ModelEngine engine;
        StartupProgress.Step loading = progress.step("loading model \"" + config.id() + "\" (" + shown(config.cfg())
                + ", backend " + config.backend().name().toLowerCase(Locale.ROOT) + ")");
        try {
            model = LoadedModel.load(config);
            engine = engines.open(model.model(), config);
            loading.done(engine.backendName());
        } catch (Throwable e) {
            loading.failed(e);
            stats.error = e.getMessage();
            onReady.accept(e);
            return;
        }
        StartupProgress.Step warming = progress.step("warming up \"" + config.id() + "\" (batch sizes "
                + (config.maxBatch() == 1 ? "1" : "1.." + config.maxBatch()) + ")");
        try {
            engine.warmUp(config.maxBatch(), 0, 0);
            warming.done();
        } catch (Throwable e) {
            warming.failed(e);
            engine.close();
            stats.error = e.getMessage();
            onReady.accept(e);
            return;
        }
        Serving current = new Serving(model, engine);
        serve(current);
        stats.loaded = true;
        stats.alive = true;
        onReady.accept(model);
        try {
            while (true) {
                if (current.engine() instanceof ModelEngine.SeveralGpus gpus) {
                    dispatch.awaitRoom(gpus.workers().liveDevices().length);
                }
                LatestFrames.Batch batch = queue.takeBatch();
                if (batch == null) break;
                Swap s = pending.getAndSet(null);
                if (s != null) current = switchTo(current, s);
                if (batch.frames().isEmpty()) continue;
                switch (current.engine()) {
                    case ModelEngine.OneDetector one -> process(one.detector(), current.model(), batch);
                    case ModelEngine.SeveralGpus gpus -> {
                        remember(batch.frames().get(0));
                        dispatch.submit(gpus.workers(), current.model(), batch.frames(), gpus.params());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            stats.error = String.valueOf(e);
            log.log(Level.ERROR, "inference worker of " + config.id() + " died", e);
        } finally {
            stopped = true;
            stats.alive = false;
            NvdecPlacement.of(config.id()).serving(null);
            current.engine().close();   // several GPUs: returns once the batches they hold are done
            if (dispatch != null) {
                try {
                    dispatch.close();   // ... and published
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Swap s = pending.getAndSet(null);
            if (s != null) abandon(s);
        }
    }

    /**
     * Starts serving {@code s}: its backend in the stats; on several GPUs the publisher thread (made once), the GPUs
     * in the status, and a log line for each GPU taken out.
     */
    private void serve(Serving s) {
        serving = s.model();
        stats.backend = s.engine().backendName();
        NvdecPlacement cameras = NvdecPlacement.of(config.id());
        if (s.engine() instanceof ModelEngine.SeveralGpus gpus) {
            if (dispatch == null) dispatch = new SeveralGpuDispatch(config.id(), new Publication());
            stats.gpus = gpus.workers();
            cameras.serving(gpus.workers().liveDevices());
            gpus.workers().onRemoval(r -> {
                int[] left = gpus.workers().liveDevices();
                cameras.serving(left);   // its NVDEC cameras reconnect onto the others
                log.log(Level.WARNING, "model " + config.id() + ": " + r.describe() + (left.length > 0
                        ? "; its cameras' frames go to devices " + java.util.Arrays.toString(left)
                        : "; no GPU left: detection stops"));
            });
        } else {
            stats.gpus = null;
            cameras.serving(null);
        }
    }

    /** A file as a person finds it: relative to the working directory when inside it. */
    private static String shown(Path file) {
        Path cwd = Path.of("").toAbsolutePath();
        Path abs = file.toAbsolutePath().normalize();
        return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
    }

    /** The model now serving (null until loaded). */
    LoadedModel serving() { return serving; }

    void tap(FrameTap t) { tap = t; }

    /** Size of the last frame processed (0 before the first): what a new detector is warmed up with. */
    int lastFrameWidth() { return lastWidth; }

    int lastFrameHeight() { return lastHeight; }

    /**
     * Serves {@code next} from the next batch on; its detector must be open (the worker owns and closes it from now
     * on). Completes with the replaced model once switched; fails when another swap is pending or the worker ended.
     */
    CompletableFuture<LoadedModel> swap(Serving next) {
        Swap s = new Swap(next, new CompletableFuture<>());
        if (!pending.compareAndSet(null, s)) {
            next.engine().close();
            return CompletableFuture.failedFuture(new IllegalStateException("model " + config.id()
                    + ": another swap is in progress"));
        }
        if (stopped && pending.compareAndSet(s, null)) abandon(s);
        queue.wake();
        return s.replaced();
    }

    private Serving switchTo(Serving old, Swap s) throws InterruptedException {
        Serving next = s.next();
        old.engine().close();   // several GPUs: returns once the batches they hold are done
        if (dispatch != null) dispatch.awaitIdle();   // and published: the next batch's tracks follow theirs
        serve(next);
        stats.swaps.increment();
        log.log(Level.INFO, "model " + config.id() + ": now serving " + next.model().version() + " (was "
                + old.model().version() + ")");
        s.replaced().complete(old.model());
        return next;
    }

    private void abandon(Swap s) {
        s.next().engine().close();
        s.replaced().completeExceptionally(new IllegalStateException("model " + config.id() + ": the inference worker stopped"));
    }

    /** One detector: detects {@code batch} on this thread, publishes it, releases its frames. */
    private void process(Detector detector, LoadedModel model, LatestFrames.Batch batch) {
        List<VideoFrame> frames = batch.frames();
        try {
            List<Picture> images = new ArrayList<>(frames.size());
            for (VideoFrame f : frames) images.add(f.picture());
            remember(frames.get(0));
            long t0 = System.nanoTime();
            List<List<Detection>> found;
            try {
                found = detector.detect(images);
            } catch (RuntimeException e) {
                failed(frames, e);
                return;
            }
            long t1 = System.nanoTime();
            publish(model, frames, found, t0, t1, detector.backend().lastStageTimes(), frames.size());
        } finally {
            for (VideoFrame f : frames) f.release();
        }
    }

    /** The frame size a swapped-in model is warmed up with. */
    private void remember(VideoFrame f) {
        lastWidth = f.width();
        lastHeight = f.height();
    }

    private void failed(List<VideoFrame> frames, Throwable e) {
        stats.failures.increment();
        stats.error = e.getMessage();
        String said = String.valueOf(e);
        if (!said.equals(lastFailure)) {
            log.log(Level.WARNING, "detect failed on a batch of " + frames.size() + ": " + said
                    + " (the same error again on later batches is counted in failures, not logged)");
        }
        lastFailure = said;
    }

    /** Several GPUs: the publisher thread's side of {@link SeveralGpuDispatch}. */
    private final class Publication implements SeveralGpuDispatch.Publisher {
        @Override
        public void publish(LoadedModel model, List<VideoFrame> frames, List<List<Detection>> found, long startNanos,
                            long endNanos, StageTimes stages, int batchSize) {
            InferenceWorker.this.publish(model, frames, found, startNanos, endNanos, stages, batchSize);
        }

        @Override
        public void failed(List<VideoFrame> frames, Throwable cause) { InferenceWorker.this.failed(frames, cause); }
    }

    /**
     * A batch's detections out: stats, each frame's tracks and message, snapshots, the tap. One batch at a time, in
     * the order batches were taken (this thread with one detector, the publisher thread with several GPUs). The
     * caller releases the frames. {@code t0}..{@code t1}: the batch's time in the detector(s).
     */
    private void publish(LoadedModel model, List<VideoFrame> frames, List<List<Detection>> found, long t0, long t1,
                         StageTimes stages, int batchFrames) {
        double inferenceMs = (t1 - t0) / 1e6;
        if (stages != null) {
            stats.timedBatches.increment();
            stats.gpuInputNanos.add(Math.round(stages.inputMs() * 1e6));
            stats.gpuNetworkNanos.add(Math.round(stages.networkMs() * 1e6));
            stats.gpuPostNanos.add(Math.round(stages.postMs() * 1e6));
        }
        stats.batches.increment();
        stats.inferenceNanos.add(t1 - t0);
        inference.record(t1 - t0, TimeUnit.NANOSECONDS);
        batchSize.record(batchFrames);
        for (int i = 0; i < frames.size(); i++) {
            VideoFrame f = frames.get(i);
            List<Detection> kept = mostConfident(found.get(i), config.maxDetections());
            long p0 = System.nanoTime();
            double queueMs = (t0 - f.captureNanos()) / 1e6;
            CameraTracks.Tracked tracked = tracks.update(f.cameraId(), kept, f.captureTimeMs(), f.width(),
                    f.height());
            stats.trackNanos.add(System.nanoTime() - p0);
            JsonObject msg = DetectionMessage.of(f, kept, tracked.tracks(), tracked.ended(), model.id(), model.version(),
                    queueMs, inferenceMs, batchFrames);
            if (!provenance.stamp(f.cameraId(), msg)) continue; // in a cluster: this node lost the camera's lease
            bus.publish(Addresses.detections(f.cameraId()), msg);
            long p1 = System.nanoTime();
            latency.apply(f.cameraId()).record(p1 - f.captureNanos(), TimeUnit.NANOSECONDS);
            stats.frames.increment();
            stats.detections.add(kept.size());
            detections.increment(kept.size());
            stats.queueNanos.add(t0 - f.captureNanos());
            stats.decodeNanos.add(Math.round(f.decodeMs() * 1e6));
            stats.publishNanos.add(p1 - p0);
            snapshots.offer(f, msg);
            FrameTap t = tap;
            if (t != null) offerTo(t, f, kept, model);
        }
    }

    private void offerTo(FrameTap t, VideoFrame f, List<Detection> kept, LoadedModel model) {
        try {
            t.offer(f, kept, model);
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "frame tap failed on frame " + f.number() + " of " + f.cameraId() + ": " + e);
        }
    }

    /** The {@code max} most confident detections, most confident first. */
    static List<Detection> mostConfident(List<Detection> found, int max) {
        if (found.size() <= max) return found;
        List<Detection> sorted = new ArrayList<>(found);
        sorted.sort((a, b) -> Float.compare(b.confidence(), a.confidence()));
        return sorted.subList(0, max);
    }
}
