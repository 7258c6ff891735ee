package io.argus.detector.nn;

/**
 * Where one batch's device time went, measured with CUDA events around the stages the backend actually ran:
 * {@code inputMs} frames into the batch tensor (upload + resize for host frames, NV12 conversion for GPU frames),
 * {@code networkMs} the layers, {@code postMs} YOLO decode + NMS + the copy of the detections back.
 */
public record StageTimes(double inputMs, double networkMs, double postMs) {}
