package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;

/**
 * One layer on the GPU, the same object whichever network runs it: the inference network (detector's CudaNetwork:
 * FP16, outputs placed into routes, CUDA graphs) and the training network (trainer's GpuTrainNetwork: half or float,
 * activation and gradient arenas) are two plans that place the views and call these. {@link #forward} and
 * {@link #backward} only enqueue work on the stream (so a whole pass can be captured as a CUDA graph); host-side
 * work for a batch size (cuDNN plans) belongs in {@link #prepare}. A layer built without gradients (inference) has
 * no backward. Backward adds into its inputs' gradients; whoever owns them clears them first.
 */
public interface GpuLayer extends AutoCloseable {
    LayerSpec spec();

    /** Where the NHWC output lives; null for [yolo] (FP32 in Darknet's layout, see {@link Yolo}). */
    TensorView output();

    /** dLoss/d(output), times the loss scale; null without gradients. */
    default TensorView gradient() { return null; }

    default void prepare(int n, GpuStream stream) {}

    void forward(int n, GpuStream stream);

    default void backward(int n, GpuStream stream) {}

    /** One line for logs: what runs for this layer. */
    default String describe() { return spec().kind(); }

    @Override
    default void close() {}
}
