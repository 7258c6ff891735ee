package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.LayerSpec;

/**
 * One layer of the training network on the CPU, forward and backward for the first {@code n} images of the batch.
 * {@link #gradient()} holds dLoss/dOutput: the layers that read this one's output add their share into it during
 * backward, so it is complete when this layer's own {@link #backward(int)} runs (layers run in reverse cfg order).
 * Backward adds dLoss/dInput into the gradients of the layers it reads.
 */
public interface TrainLayer extends AutoCloseable {
    LayerSpec spec();

    NativeFloats output();

    /** dLoss/dOutput of the batch; null for a layer whose output nobody differentiates ([yolo]). */
    NativeFloats gradient();

    void forward(int n);

    void backward(int n);

    @Override
    default void close() {}
}
