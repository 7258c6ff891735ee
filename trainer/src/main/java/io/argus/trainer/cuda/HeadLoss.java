package io.argus.trainer.cuda;

import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLibrary;
import io.argus.gpu.TensorView;

/**
 * A loss over the [yolo] heads that replaces the YOLO loss, supplied by whoever builds the backend
 * ({@link CudaTrainingBackend#CudaTrainingBackend(io.argus.detector.darknet.NetworkSpec,
 * io.argus.detector.darknet.ModelWeights, int, CudaTrainingOptions, HeadLoss)}). Training itself always uses the
 * YOLO loss; this hook exists so that a benchmark can time the network alone on a loss that needs no truths
 * (io.argus.tools.trainer.StandInLoss), without the training network carrying that loss.
 */
@FunctionalInterface
public interface HeadLoss {
    /**
     * Prepares the loss over one head, once, when the backend is built; called for every [yolo] layer whose input is
     * trained, in layer order.
     */
    Pass attach(Head head);

    /** The loss over one head, enqueued once per pass after the forward pass. */
    @FunctionalInterface
    interface Pass {
        /**
         * Enqueues, on the head's stream, the loss over the first {@code n} images: dLoss/d(input) times
         * {@code lossScale} added into {@link Head#gradient} (cleared before the pass), the loss added into
         * {@link Head#lossSum}.
         */
        void run(int n, float lossScale);
    }

    /**
     * One head as the training network holds it.
     *
     * @param spec     the [yolo] layer
     * @param input    the head's input (the previous layer's output; NHWC, storage precision)
     * @param gradient where the gradient of that input goes (same layout)
     * @param lossSum  device address of a double the loss adds into; the backend reports it as the box part of
     *                 {@link io.argus.trainer.loss.LossParts}, so its total is this loss
     * @param kernels  the device's kernel library
     * @param stream   the training stream all of the pass is enqueued on
     * @param device   the device (for launch grids)
     */
    record Head(YoloSpec spec, TensorView input, TensorView gradient, long lossSum, KernelLibrary kernels,
                GpuStream stream, GpuDevice device) {}
}
