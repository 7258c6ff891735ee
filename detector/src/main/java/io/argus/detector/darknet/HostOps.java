package io.argus.detector.darknet;

/**
 * Computation a network hands to the host because no layer kind expresses it (the parts of an imported ONNX graph that
 * are not convolutions, pools, concatenations or sums: a YOLOX stem's pixel slicing, YOLO11's attention). One image
 * at a time, FP32 in Darknet's NCHW order on both sides. Implementations are immutable and safe to call from several
 * threads at once (each backend of a model calls it on its own thread).
 */
public interface HostOps {
    /** Computes {@code output} (every value written) from {@code inputs}, one array per input of the layer. */
    void apply(float[][] inputs, float[] output);

    /** What it computes, for logs and errors (e.g. "8 ONNX nodes: Slice, Concat"). */
    String describe();
}
