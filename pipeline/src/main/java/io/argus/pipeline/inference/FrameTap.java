package io.argus.pipeline.inference;

import io.argus.detector.Detection;
import io.argus.pipeline.frames.VideoFrame;
import java.util.List;

/**
 * Sees every processed frame with its detections, on the inference thread, after the detection message is out (the
 * online trainer's frame collector). Must return at once: copy or {@link VideoFrame#retain() retain} what it keeps,
 * the worker releases its own reference right after.
 */
@FunctionalInterface
public interface FrameTap {
    void offer(VideoFrame frame, List<Detection> detections, LoadedModel servedBy);
}
