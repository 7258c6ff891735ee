package io.argus.detector.nn;

import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Picture;
import java.util.List;

/**
 * One instantiated network on one device: pre-processing, forward, YOLO decode and NMS for up to
 * {@link #maxBatch()} images per call. Owned by one thread; not thread-safe.
 */
public interface InferenceBackend extends AutoCloseable {
    /** "cpu" or "cuda". */
    String name();

    int maxBatch();

    /**
     * Detections per picture, in the pictures' order; boxes in source pixels. A picture this backend cannot read (an
     * NVDEC surface on the CPU backend) is an {@link IllegalArgumentException} naming it.
     */
    List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params);

    /**
     * As {@link #detect(List, DetectParams)}, told the pictures of the call that will follow ({@code next}, unchanged
     * until then; null when none is known): a backend may start moving them to its device while this call computes.
     * The default ignores them.
     */
    default List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params,
                                         List<? extends Picture> next) {
        return detect(pictures, params);
    }

    /** Device time of the stages of the last {@link #detect} call, or null where the backend does not time them. */
    default StageTimes lastStageTimes() { return null; }

    /**
     * Activated output of [yolo] head {@code head} (cfg order) for image {@code image} of the last call, in Darknet's
     * layout [anchor][x, y, w, h, objectness, classes...][row][col], as FP32. For tests and tools.
     */
    float[] headOutput(int head, int image);

    @Override
    void close();
}
