package io.argus.detector.nn;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import java.util.List;

/**
 * One instantiated network on one device: pre-processing, forward, YOLO decode and NMS for up to
 * {@link #maxBatch()} images per call. Owned by one thread; not thread-safe.
 */
public interface InferenceBackend extends AutoCloseable {
    /** "cpu" or "cuda". */
    String name();

    int maxBatch();

    /** Detections per image, in the images' order; boxes in source pixels. */
    List<List<Detection>> detect(List<BgrImage> images, DetectParams params);

    /**
     * Activated output of [yolo] head {@code head} (cfg order) for image {@code image} of the last call, in Darknet's
     * layout [anchor][x, y, w, h, objectness, classes...][row][col], as FP32. For tests and tools.
     */
    float[] headOutput(int head, int image);

    @Override
    void close();
}
