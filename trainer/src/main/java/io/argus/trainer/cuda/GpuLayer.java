package io.argus.trainer.cuda;

import io.argus.detector.darknet.LayerSpec;

/**
 * One layer of a network training on the GPU: forward and backward enqueue kernels on the context's stream.
 * {@link #output()} and {@link #gradient()} are the layer's feature maps and dLoss/d(them) (null for [yolo]); a
 * layer adds into its inputs' gradients, which the network clears just before the first layer (or loss) adds into
 * them; after a layer's backward its own gradient's bytes may be reused (see {@link GradientPlan}).
 */
interface GpuLayer extends AutoCloseable {
    LayerSpec spec();

    Tensor output();

    Tensor gradient();

    void forward(int n);

    void backward(int n);

    default String describe() { return spec().kind(); }

    @Override
    default void close() {}
}
