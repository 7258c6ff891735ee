package io.argus.pipeline.publish;

import io.argus.detector.Detection;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.json.DetectionJson;
import io.argus.tracking.TrackState;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;

/**
 * The detection message published on {@code argus.detections.<cameraId>} and sent to WebSocket clients (schema in
 * docs/pipeline.md):
 *
 * <pre>{@code
 * {"type": "detections", "cameraId": "cam1", "frame": 1234, "pts": 41133.3, "captureTime": 1763884800123.456,
 *  "width": 1280, "height": 720, "model": {"id": "default", "version": "sha256:0123456789ab"},
 *  "detections": [{"classId": 16, "className": "dog", "confidence": 0.91,
 *                  "box": {"x": 120.5, "y": 80.0, "w": 300.2, "h": 260.7},
 *                  "track": {"id": 17, "age": 42, "velocity": {"x": 12.5, "y": -3.0},
 *                            "box": {"x": 121.0, "y": 80.3, "w": 299.8, "h": 260.1}}}],
 *  "tracksEnded": [12],
 *  "latency": {"decodeMs": 3.1, "queueMs": 4.2, "inferenceMs": 35.0, "totalMs": 42.9}, "batchSize": 2}
 * }</pre>
 */
public final class DetectionMessage {
    private DetectionMessage() {}

    /**
     * @param queueMs     capture to the start of the batch
     * @param inferenceMs the batch's detector time
     */
    /**
     * @param tracks the camera tracker's answer, aligned with {@code found} (null entries: untracked detections), or
     *               null when the camera is not tracked
     * @param ended  ids of the camera's tracks that ended with this frame (their objects are gone)
     */
    public static JsonObject of(VideoFrame f, List<Detection> found, List<TrackState> tracks, List<Long> ended,
                                String modelId, String modelVersion, double queueMs, double inferenceMs, int batchSize) {
        JsonObject m = new JsonObject()
                .put("type", "detections")
                .put("cameraId", f.cameraId())
                .put("frame", f.number())
                .put("pts", round(f.ptsMs(), 3))
                .put("captureTime", round(f.captureTimeMs(), 3))
                .put("width", f.width())
                .put("height", f.height())
                .put("model", new JsonObject().put("id", modelId).put("version", modelVersion))
                .put("detections", detections(found, tracks));
        if (!ended.isEmpty()) m.put("tracksEnded", new JsonArray(List.copyOf(ended)));
        return m.put("latency", new JsonObject()
                        .put("decodeMs", round(f.decodeMs(), 3))
                        .put("queueMs", round(queueMs, 3))
                        .put("inferenceMs", round(inferenceMs, 3))
                        .put("totalMs", round(nowMs() - f.captureTimeMs(), 3)))
                .put("batchSize", batchSize);
    }

    private static JsonArray detections(List<Detection> found, List<TrackState> tracks) {
        JsonArray a = new JsonArray();
        for (int i = 0; i < found.size(); i++) {
            JsonObject d = DetectionJson.of(found.get(i));
            TrackState t = tracks != null ? tracks.get(i) : null;
            if (t != null) {
                io.argus.detector.Box b = t.box();
                d.put("track", new JsonObject().put("id", t.id()).put("age", t.ageFrames())
                        .put("velocity", new JsonObject().put("x", round(t.vx(), 2)).put("y", round(t.vy(), 2)))
                        .put("box", new JsonObject().put("x", round(b.x(), 2)).put("y", round(b.y(), 2))
                                .put("w", round(b.w(), 2)).put("h", round(b.h(), 2))));
            }
            a.add(d);
        }
        return a;
    }

    /**
     * A made-up message of the real shape (one box, captured now), for warming up the code that encodes and parses
     * messages before the first real one: the WebSocket gateway at start, the live probe before it connects.
     */
    public static JsonObject sample(String cameraId) {
        double now = nowMs();
        return new JsonObject()
                .put("type", "detections").put("cameraId", cameraId).put("frame", 1L).put("pts", 0.0)
                .put("captureTime", round(now, 3)).put("width", 1920).put("height", 1080)
                .put("model", new JsonObject().put("id", "sample").put("version", "v1"))
                .put("detections", DetectionJson.of(List.of(new Detection(0, "sample", 0.9f,
                        new io.argus.detector.Box(10, 20, 30, 40)))))
                .put("latency", new JsonObject().put("decodeMs", 1.0).put("queueMs", 1.0).put("inferenceMs", 1.0)
                        .put("totalMs", 3.0))
                .put("batchSize", 1);
    }

    /** Wall clock in epoch ms with sub-ms precision (same clock as captureTime). */
    public static double nowMs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1000.0 + now.getNano() / 1e6;
    }

    static double round(double v, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }
}
