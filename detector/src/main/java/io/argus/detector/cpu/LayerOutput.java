package io.argus.detector.cpu;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.Pointer;

/**
 * Where a layer's output lives for a given batch size. Normally its own buffer (maxBatch images, NCHW). For a single
 * image, a layer whose whole output a [route] concatenates writes straight into its slice of the route's buffer, so
 * the route copies nothing; every reader asks here and finds it.
 */
final class LayerOutput implements AutoCloseable {
    private final NativeFloats own;
    private LayerOutput aliasTarget;
    private long aliasOffset;

    LayerOutput(long floats) {
        this.own = new NativeFloats(floats);
    }

    /** From now on, batch-1 results live in {@code route}'s buffer at {@code offset} floats. */
    void aliasInto(LayerOutput route, long offset) {
        if (route.aliasTarget != null) throw new IllegalStateException("alias chains are not supported");
        this.aliasTarget = route;
        this.aliasOffset = offset;
    }

    boolean aliasedAt(int n) { return n == 1 && aliasTarget != null; }

    /** True when, for this batch size, this output already sits in {@code route}'s buffer. */
    boolean livesIn(LayerOutput route, int n) { return aliasedAt(n) && aliasTarget == route; }

    NativeFloats storage(int n) { return aliasedAt(n) ? aliasTarget.own : own; }

    /** Float index of image 0 in {@link #storage(int)}. */
    int offset(int n) { return aliasedAt(n) ? (int) aliasOffset : 0; }

    FloatBuffer buffer(int n) { return storage(n).buffer(); }

    /** A pointer to image 0, for binding native memories once (allocates a small Java object). */
    Pointer pointer(int n) { return storage(n).at(offset(n)); }

    /** The layer's own buffer (batch results; for callers reading outputs after forward(n) use buffer/offset). */
    NativeFloats own() { return own; }

    @Override
    public void close() { own.close(); }
}
