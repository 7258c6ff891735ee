package io.argus.detector;

/**
 * The head of a model imported from another format (an ONNX graph's outputs and their decoding, {@code
 * io.argus.detector.onnx.OnnxHead}), as the {@link Model} holds it: the engine's base types know that a model may have
 * one, not what it is, so the formats depend on the base and never the other way round.
 */
public interface ImportedHead {
    /** Number of classes the head scores. */
    int classes();

    /** What it is, for messages (e.g. "yolov8 head"). */
    String describe();
}
