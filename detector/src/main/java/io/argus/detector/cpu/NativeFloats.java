package io.argus.detector.cpu;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A native float array: the BLAS side sees a pointer, the Java side a direct FloatBuffer over the same memory.
 * Allocated once per (model, batch) and reused for every frame.
 */
public final class NativeFloats implements AutoCloseable {
    private final FloatPointer memory;
    private final FloatBuffer buffer;
    private final long size;

    public NativeFloats(long size) {
        if (size <= 0 || size > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor size " + size);
        this.size = size;
        this.memory = new FloatPointer(size);
        if (memory.isNull()) throw new OutOfMemoryError("cannot allocate " + 4 * size + " native bytes");
        memory.zero();
        this.buffer = memory.asBuffer();
    }

    public long size() { return size; }

    /** Java view, indexed absolutely from 0. */
    public FloatBuffer buffer() { return buffer; }

    /** The memory itself, for native libraries that keep it (oneDNN memories); do not move its position. */
    public FloatPointer pointer() { return memory; }

    /**
     * A plain pointer to float {@code index} (address arithmetic done here: a position on a typed pointer passed as
     * {@code void*} would count bytes, not floats). It owns nothing.
     */
    public Pointer at(long index) {
        if (index < 0 || index >= size) throw new IndexOutOfBoundsException("float " + index + " of " + size);
        long target = memory.address() + 4 * index;
        return new Pointer() {
            {
                address = target;
            }
        };
    }

    /** A new pointer object onto the same memory; callers keep one per argument slot and move its position. */
    public FloatPointer view() { return new FloatPointer(memory); }

    public void copyFrom(float[] src) {
        buffer.put(0, src, 0, src.length);
    }

    @Override
    public void close() {
        memory.close();
    }
}
