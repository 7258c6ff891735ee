package io.argus.pipeline.inference;

import io.argus.detector.BgrImage;
import io.argus.detector.Detection;
import io.argus.detector.Detector;
import io.argus.detector.Picture;
import io.argus.detector.nn.StageTimes;
import io.argus.pipeline.app.Addresses;
import io.argus.pipeline.app.StartupProgress;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.publish.DetectionMessage;
import io.argus.pipeline.publish.Provenance;
import io.argus.pipeline.publish.Snapshots;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The inference thread of one model: loads the model, owns its {@link Detector} (not thread-safe: nobody else
 * touches it), takes batches from {@link LatestFrames}, detects, publishes one message per frame on
 * {@code argus.detections.<cameraId>}, offers frames to the snapshot encoder and the {@link FrameTap}, releases them.
 *
 * <p><b>Hot swap.</b> {@link #swap} hands over a model loaded and a detector opened elsewhere (beside the serving
 * one); the worker switches between two batches: the batch in flight finishes on the old model, the next batch runs
 * on the new one. The queue is not touched, so no frame is dropped or processed twice because of the swap.
 */
final class InferenceWorker implements Runnable {
    /** A model and the detector running it. */
    record Serving(LoadedModel model, Detector detector) {}

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

    InferenceWorker(ModelConfig config, LatestFrames queue, EventBus bus, Snapshots snapshots, ModelStats stats,
                    StartupProgress progress, Consumer<Object> onReady, Function<String, Timer> latency, DistributionSummary batchSize,
                    Timer inference, Counter detections, Provenance provenance, CameraTracks tracks) {
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
        Detector detector;
        StartupProgress.Step loading = progress.step("loading model \"" + config.id() + "\" (" + shown(config.cfg())
                + ", backend " + config.backend().name().toLowerCase(Locale.ROOT) + ")");
        try {
            model = LoadedModel.load(config);
            detector = Detector.open(model.model(), config.detectorOptions());
            loading.done(detector.backendName());
        } catch (Throwable e) {
            loading.failed(e);
            stats.error = e.getMessage();
            onReady.accept(e);
            return;
        }
        StartupProgress.Step warming = progress.step("warming up \"" + config.id() + "\" (batch sizes "
                + (config.maxBatch() == 1 ? "1" : "1.." + config.maxBatch()) + ")");
        try {
            warmUp(detector, config.maxBatch(), 0, 0);
            warming.done();
        } catch (Throwable e) {
            warming.failed(e);
            detector.close();
            stats.error = e.getMessage();
            onReady.accept(e);
            return;
        }
        stats.backend = detector.backendName();
        stats.loaded = true;
        stats.alive = true;
        serving = model;
        onReady.accept(model);
        Serving current = new Serving(model, detector);
        try {
            LatestFrames.Batch batch;
            while ((batch = queue.takeBatch()) != null) {
                Swap s = pending.getAndSet(null);
                if (s != null) current = switchTo(current, s);
                if (!batch.frames().isEmpty()) process(current.detector(), current.model(), batch);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            stats.error = String.valueOf(e);
            log.log(Level.ERROR, "inference worker of " + config.id() + " died", e);
        } finally {
            stopped = true;
            stats.alive = false;
            current.detector().close();
            Swap s = pending.getAndSet(null);
            if (s != null) abandon(s);
        }
    }

    /**
     * Runs every batch size once on blank frames ({@code width} x {@code height}, or the network's input size when
     * 0), so the first real batches do not pay for building the detector's primitives (oneDNN) or graphs (CUDA):
     * without it the first frames of a start, or of a swapped-in model, come late.
     */
    static void warmUp(Detector d, int maxBatch, int width, int height) {
        int w = width > 0 ? width : d.model().spec().net().width();
        int h = height > 0 ? height : d.model().spec().net().height();
        BgrImage blank = BgrImage.of(w, h, new byte[w * h * 3]);
        for (int n = 1; n <= maxBatch; n++) d.detect(Collections.nCopies(n, blank));
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
            next.detector().close();
            return CompletableFuture.failedFuture(new IllegalStateException("model " + config.id()
                    + ": another swap is in progress"));
        }
        if (stopped && pending.compareAndSet(s, null)) abandon(s);
        queue.wake();
        return s.replaced();
    }

    private Serving switchTo(Serving old, Swap s) {
        Serving next = s.next();
        old.detector().close();
        serving = next.model();
        stats.backend = next.detector().backendName();
        stats.swaps.increment();
        log.log(Level.INFO, "model " + config.id() + ": now serving " + next.model().version() + " (was "
                + old.model().version() + ")");
        s.replaced().complete(old.model());
        return next;
    }

    private void abandon(Swap s) {
        s.next().detector().close();
        s.replaced().completeExceptionally(new IllegalStateException("model " + config.id() + ": the inference worker stopped"));
    }

    private void process(Detector detector, LoadedModel model, LatestFrames.Batch batch) {
        List<VideoFrame> frames = batch.frames();
        try {
            List<Picture> images = new ArrayList<>(frames.size());
            for (VideoFrame f : frames) images.add(f.picture());
            lastWidth = images.get(0).width();
            lastHeight = images.get(0).height();
            long t0 = System.nanoTime();
            List<List<Detection>> found;
            try {
                found = detector.detect(images);
            } catch (RuntimeException e) {
                stats.failures.increment();
                stats.error = e.getMessage();
                log.log(Level.WARNING, "detect failed on a batch of " + frames.size() + ": " + e);
                return;
            }
            long t1 = System.nanoTime();
            double inferenceMs = (t1 - t0) / 1e6;
            StageTimes stages = detector.backend().lastStageTimes();
            if (stages != null) {
                stats.timedBatches.increment();
                stats.gpuInputNanos.add(Math.round(stages.inputMs() * 1e6));
                stats.gpuNetworkNanos.add(Math.round(stages.networkMs() * 1e6));
                stats.gpuPostNanos.add(Math.round(stages.postMs() * 1e6));
            }
            stats.batches.increment();
            stats.inferenceNanos.add(t1 - t0);
            inference.record(t1 - t0, TimeUnit.NANOSECONDS);
            batchSize.record(frames.size());
            for (int i = 0; i < frames.size(); i++) {
                VideoFrame f = frames.get(i);
                List<Detection> kept = mostConfident(found.get(i), config.maxDetections());
                long p0 = System.nanoTime();
                double queueMs = (t0 - f.captureNanos()) / 1e6;
                CameraTracks.Tracked tracked = tracks.update(f.cameraId(), kept, f.captureTimeMs(), f.width(),
                        f.height());
                stats.trackNanos.add(System.nanoTime() - p0);
                JsonObject msg = DetectionMessage.of(f, kept, tracked.tracks(), tracked.ended(), model.id(), model.version(),
                        queueMs, inferenceMs, frames.size());
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
        } finally {
            for (VideoFrame f : frames) f.release();
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
