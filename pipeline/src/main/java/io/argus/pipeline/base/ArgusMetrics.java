package io.argus.pipeline.base;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code argus_*} Prometheus series (names in docs/pipeline.md). Micrometer names {@code argus.camera.fps} are
 * exported as {@code argus_camera_fps}; timers in seconds.
 */
public final class ArgusMetrics {
    /**
     * End-to-end latency buckets (capture to publish). Every 2.5 ms from 5 to 30 ms, where a live frame's latency
     * lies: a quantile is interpolated linearly inside its bucket, so with the earlier 10-20 and 20-35 ms buckets a
     * p99 said little about where in those 15 ms the tail was (the 2-hour soak of 2026-11-28, docs/reliability.md:
     * its per-interval p99 stepped from a median of 31.4 to 20.0 ms).
     */
    private static final Duration[] LATENCY_BUCKETS = millis(5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5, 30, 35, 40,
            50, 60, 75, 100, 150, 200, 300, 500, 1000, 2000, 5000);

    private static Duration[] millis(double... ms) {
        Duration[] out = new Duration[ms.length];
        for (int i = 0; i < ms.length; i++) out[i] = Duration.ofNanos(Math.round(ms[i] * 1e6));
        return out;
    }

    private final MeterRegistry registry;

    public ArgusMetrics(MeterRegistry registry) { this.registry = registry; }

    public MeterRegistry registry() { return registry; }

    /** Meters registered together and removed together (a camera's, a model's). */
    public final class Group implements AutoCloseable {
        private final List<Meter> meters = new ArrayList<>();

        /** {@code m}, registered by its feature (camera/CameraMeters), now removed with the group. */
        public <M extends Meter> M add(M m) {
            meters.add(m);
            return m;
        }

        @Override
        public void close() {
            for (Meter m : meters) registry.remove(m);
            meters.clear();
        }
    }

    /** End-to-end latency of one camera: capture to publication of its detections. */
    public Timer latency(Group g, String camera) {
        return g.add(Timer.builder("argus.latency").tag("camera", camera)
                .description("Capture to detections published")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry));
    }

    public DistributionSummary batchSize(Group g, String model, int maxBatch) {
        double[] buckets = new double[maxBatch];
        for (int i = 0; i < maxBatch; i++) buckets[i] = i + 1;
        return g.add(DistributionSummary.builder("argus.batch.size").tag("model", model)
                .description("Frames per inference batch").serviceLevelObjectives(buckets).register(registry));
    }

    public Timer inference(Group g, String model) {
        return g.add(Timer.builder("argus.inference").tag("model", model)
                .description("Detector time per batch (preprocess, network, decode, NMS)")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry));
    }

    public Counter detections(Group g, String model) {
        return g.add(Counter.builder("argus.detections").tag("model", model).description("Objects detected").register(registry));
    }

    public void queueDepth(Group g, String queue, String owner, Supplier<Number> depth) {
        g.add(Gauge.builder("argus.queue.depth", depth).tag("queue", queue).tag("owner", owner)
                .description("Items waiting in a queue").register(registry));
    }

    public Group group() { return new Group(); }

    public Counter counter(Group g, String name, String description, String... tags) {
        return g.add(Counter.builder(name).tags(tags).description(description).register(registry));
    }

    public void gauge(Group g, String name, String description, Supplier<Number> value, String... tags) {
        g.add(Gauge.builder(name, value).tags(tags).description(description).register(registry));
    }

    /** A counter kept elsewhere (a monotonic total read at each scrape). */
    public void functionCounter(Group g, String name, String description, Supplier<Number> total, String... tags) {
        g.add(FunctionCounter.builder(name, total, t -> t.get().doubleValue()).tags(tags).description(description)
                .register(registry));
    }
}
