package io.argus.detector.cpu;

/** One layer of the CPU backend: reads its inputs' tensors, writes its own output for the first {@code n} images. */
interface CpuLayer extends AutoCloseable {
    void forward(int n);

    NativeFloats output();

    @Override
    default void close() {}
}
