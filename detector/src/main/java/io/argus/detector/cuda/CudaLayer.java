package io.argus.detector.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;

/**
 * One layer of a {@link CudaNetwork}: reads earlier layers' views, writes its own. {@link #prepare} does the
 * host-side work for a batch size (cuDNN plans) and may allocate; {@link #forward} only enqueues work on the stream,
 * so a whole forward can be captured as a CUDA graph.
 */
interface CudaLayer extends AutoCloseable {
    LayerSpec spec();

    /** Where the FP16 NHWC output lives; null for [yolo] (FP32, see {@link YoloHead}). */
    TensorView output();

    default void prepare(int n, GpuStream stream) {}

    void forward(int n, GpuStream stream);

    /** One line for logs: what runs for this layer. */
    String describe();

    @Override
    default void close() {}
}
