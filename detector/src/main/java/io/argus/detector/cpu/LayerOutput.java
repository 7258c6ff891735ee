package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_nhwc;

import io.argus.detector.darknet.Shape;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A layer's output for up to maxBatch images: channels last (NHWC) in the network's precision, one native buffer.
 * Channels last is the layout oneDNN's fastest convolutions (brgemm, AMX) read and write directly: in NCHW every
 * convolution was wrapped in two reorders (ncsp). Image i starts at i x {@link #imageBytes()}.
 */
final class LayerOutput implements AutoCloseable {
    private static final int ALIGN = 64;
    private final Shape shape;
    private final CpuPrecision precision;
    private final BytePointer memory;
    private final Pointer aligned;

    LayerOutput(Shape shape, int maxBatch, CpuPrecision precision) {
        this.shape = shape;
        this.precision = precision;
        long bytes = (long) maxBatch * imageBytes();
        this.memory = new BytePointer(bytes + ALIGN);
        if (memory.isNull()) throw new OutOfMemoryError("cannot allocate " + bytes + " native bytes for a layer output");
        memory.zero();
        long skip = (ALIGN - memory.address() % ALIGN) % ALIGN;
        long start = memory.address() + skip;
        this.aligned = new Pointer() {
            {
                address = start;
            }
        };
    }

    Shape shape() { return shape; }

    CpuPrecision precision() { return precision; }

    long imageBytes() { return (long) shape.size() * precision.bytes; }

    /** Image 0; oneDNN memories are bound to it once. */
    Pointer pointer() { return aligned; }

    /** The layout of the first {@code n} images: NHWC in the network's type (dims in oneDNN's N, C, H, W order). */
    dnnl_memory_desc desc(Dnnl.Resources r, int n) {
        return r.desc(dims(n), precision.dnnlType, dnnl_nhwc);
    }

    long[] dims(int n) { return new long[] {n, shape.channels(), shape.height(), shape.width()}; }

    @Override
    public void close() { memory.close(); }
}
