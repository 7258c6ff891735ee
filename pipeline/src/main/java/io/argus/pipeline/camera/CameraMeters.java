package io.argus.pipeline.camera;

import io.argus.pipeline.base.ArgusMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** A camera's {@code argus_camera_*} series (names in docs/pipeline.md), registered and removed together. */
final class CameraMeters {
    private CameraMeters() {}

    /** Per-camera series: fps, frames, decode time, drops, reconnects, state. */
    static ArgusMetrics.Group register(ArgusMetrics metrics, String id, CameraStats s) {
        MeterRegistry registry = metrics.registry();
        ArgusMetrics.Group g = metrics.group();
        g.add(Gauge.builder("argus.camera.fps", s, CameraStats::fps).tag("camera", id)
                .description("Decoded frames per second").register(registry));
        g.add(Gauge.builder("argus.camera.decode.ms", s, CameraStats::decodeMs).tag("camera", id)
                .description("Mean decode time per frame over the last second, ms").register(registry));
        g.add(FunctionCounter.builder("argus.camera.frames", s, CameraStats::decoded).tag("camera", id)
                .description("Frames decoded").register(registry));
        g.add(FunctionCounter.builder("argus.camera.decode.seconds", s, x -> x.decodeNanosTotal() / 1e9).tag("camera", id)
                .description("Total time spent decoding").register(registry));
        g.add(FunctionCounter.builder("argus.camera.dropped.frames", s, CameraStats::droppedSuperseded).tag("camera", id)
                .tag("reason", "superseded").description("Frames dropped unprocessed").register(registry));
        g.add(FunctionCounter.builder("argus.camera.dropped.frames", s, CameraStats::droppedPool).tag("camera", id)
                .tag("reason", "pool_exhausted").description("Frames dropped unprocessed").register(registry));
        g.add(FunctionCounter.builder("argus.camera.reconnects", s, CameraStats::reconnects).tag("camera", id)
                .description("Reconnect attempts").register(registry));
        g.add(Gauge.builder("argus.camera.up", s, x -> x.state() == CameraStats.State.STREAMING ? 1 : 0).tag("camera", id)
                .description("1 while the camera is streaming").register(registry));
        return g;
    }
}
