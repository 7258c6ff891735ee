package io.argus.detector.cpu;

/**
 * One layer of the CPU backend: reads its inputs' outputs, writes its own for the first {@code n} images. A layer made
 * for training ({@link CpuTrainingNetwork}) also runs backward: from dLoss/dOutput (its gradient, complete once every
 * layer reading it has run backward) to dLoss/dInput, into its inputs' gradients, and to its parameters' gradients.
 */
interface CpuLayer extends AutoCloseable {
    void forward(int n);

    LayerOutput output();

    /** Training only: dLoss/dInput and the parameters' gradients for the first {@code n} images of the last forward. */
    default void backward(int n) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " was made for inference, not training");
    }

    @Override
    default void close() {}
}
