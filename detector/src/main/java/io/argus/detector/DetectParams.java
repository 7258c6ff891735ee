package io.argus.detector;

import io.argus.detector.darknet.YoloSpec.NmsKind;

/**
 * Thresholds for one detect call. {@code threshold}: minimum objectness and objectness x class probability
 * (Darknet's -thresh, 0.25); {@code nms}: overlap above which a lower-scored box of the same class is dropped
 * (Darknet's 0.45; 0 disables NMS); {@code nmsKind}: null keeps each [yolo] layer's nms_kind.
 */
public record DetectParams(float threshold, float nms, NmsKind nmsKind) {
    public static final DetectParams DEFAULT = new DetectParams(0.25f, 0.45f, null);

    public DetectParams {
        if (!(threshold >= 0 && threshold <= 1)) throw new IllegalArgumentException("threshold " + threshold + " outside 0..1");
        if (!(nms >= 0 && nms <= 1)) throw new IllegalArgumentException("nms " + nms + " outside 0..1");
    }
}
