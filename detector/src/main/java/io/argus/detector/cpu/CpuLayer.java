package io.argus.detector.cpu;

/** One layer of the CPU backend: reads its inputs' outputs, writes its own for the first {@code n} images. */
interface CpuLayer extends AutoCloseable {
    void forward(int n);

    LayerOutput output();

    @Override
    default void close() {}
}
