package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_bf16;
import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_nhwc;
import static org.bytedeco.dnnl.global.dnnl.dnnl_s8;
import static org.bytedeco.dnnl.global.dnnl.dnnl_u8;

import io.argus.detector.darknet.Shape;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A layer's output for up to maxBatch images: channels last (NHWC), one native buffer. Channels last is the layout
 * oneDNN's fastest convolutions (brgemm, AMX) read and write directly: in NCHW every convolution was wrapped in two
 * reorders (ncsp). Image i starts at i x {@link #imageBytes()}.
 *
 * <p>Its number type is oneDNN's ({@code dnnl_f32}, {@code dnnl_bf16}, {@code dnnl_s8}, {@code dnnl_u8}); an 8-bit
 * output stands for {@code scale} x its integers (INT8 networks, {@link Int8Calibration}); 1 for the others.
 */
final class LayerOutput implements AutoCloseable {
    private static final int ALIGN = 64;
    private final Shape shape;
    private final int dnnlType;
    private final int bytes;
    private final float scale;
    private final BytePointer memory;
    private final Pointer aligned;

    /** In the network's precision; an INT8 network's outputs are made with {@link #quantized}. */
    LayerOutput(Shape shape, int maxBatch, CpuPrecision precision) {
        this(shape, maxBatch, precision == CpuPrecision.BF16 ? dnnl_bf16 : dnnl_f32, 1f);
    }

    /** An output of {@code dnnlType} (dnnl_s8 or dnnl_u8: real value = scale x integer; dnnl_f32: scale 1). */
    static LayerOutput quantized(Shape shape, int maxBatch, int dnnlType, float scale) {
        return new LayerOutput(shape, maxBatch, dnnlType, scale);
    }

    private LayerOutput(Shape shape, int maxBatch, int dnnlType, float scale) {
        if (!(scale > 0) || !Float.isFinite(scale)) throw new IllegalArgumentException("scale " + scale);
        this.shape = shape;
        this.dnnlType = dnnlType;
        this.bytes = dnnlType == dnnl_f32 ? 4 : dnnlType == dnnl_bf16 ? 2 : 1;
        this.scale = scale;
        long total = (long) maxBatch * imageBytes();
        this.memory = new BytePointer(total + ALIGN);
        if (memory.isNull()) throw new OutOfMemoryError("cannot allocate " + total + " native bytes for a layer output");
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

    /** oneDNN's type of the elements. */
    int dnnlType() { return dnnlType; }

    /** True for s8 and u8 outputs, whose integers stand for {@link #scale()} times them. */
    boolean quantized() { return dnnlType == dnnl_s8 || dnnlType == dnnl_u8; }

    /** Real value of one unit (1 unless quantized). */
    float scale() { return scale; }

    long imageBytes() { return (long) shape.size() * bytes; }

    /** Image 0; oneDNN memories are bound to it once. */
    Pointer pointer() { return aligned; }

    /** The layout of the first {@code n} images: NHWC in this output's type (dims in oneDNN's N, C, H, W order). */
    dnnl_memory_desc desc(Dnnl.Resources r, int n) {
        return r.desc(dims(n), dnnlType, dnnl_nhwc);
    }

    long[] dims(int n) { return new long[] {n, shape.channels(), shape.height(), shape.width()}; }

    @Override
    public void close() { memory.close(); }
}
