package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_memory_desc_get_size;
import static org.bytedeco.dnnl.global.dnnl.dnnl_memory_set_data_handle;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.dnnl.dnnl_memory;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.javacpp.Pointer;

/**
 * One scratch buffer shared by all oneDNN primitives of a network (they run one after the other on one stream).
 * Left to itself, oneDNN allocates scratch memory inside every execution; for large layers glibc maps and unmaps it
 * each time and the page faults cost more than the convolution (yolov3 ran 7x slower until warm). Here it is
 * allocated once, grown while primitives are built, and every bound memory is re-pointed when it grows.
 */
final class Scratchpad implements AutoCloseable {
    private static final int ALIGN = 64;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final List<dnnl_memory> bound = new ArrayList<>();
    private NativeFloats buffer;
    private long bytes;
    private java.nio.FloatBuffer floats;   // the Java view of the aligned buffer, made again when it grows

    /** A memory for a primitive's scratchpad descriptor; null when the primitive needs none. */
    dnnl_memory bind(dnnl_memory_desc desc) {
        long need = dnnl_memory_desc_get_size(desc);
        if (need == 0) return null;
        if (need > bytes) grow(need);
        dnnl_memory m = resources.memory(desc, aligned());
        bound.add(m);
        return m;
    }

    private void grow(long need) {
        NativeFloats old = buffer;
        buffer = new NativeFloats((need + ALIGN) / 4 + 1);
        bytes = need;
        floats = null;
        Pointer p = aligned();
        for (dnnl_memory m : bound) Dnnl.check(dnnl_memory_set_data_handle(m, p), "memory_set_data_handle");
        if (old != null) old.close();
    }

    private Pointer aligned() {
        long address = buffer.pointer().address();
        long skip = (ALIGN - address % ALIGN) % ALIGN;
        return buffer.at(skip / 4);
    }

    long bytes() { return bytes; }

    /**
     * The buffer as floats, for Java code that fills or reads what a bound primitive reads or wrote (our Winograd
     * transforms); a new view only after the buffer grew, i.e. never once every primitive is built.
     */
    java.nio.FloatBuffer floats() {
        if (buffer == null) throw new IllegalStateException("nothing bound yet");
        if (floats == null) {
            long address = buffer.pointer().address();
            int skip = (int) ((ALIGN - address % ALIGN) % ALIGN) / 4;
            floats = buffer.buffer().slice(skip, (int) (bytes / 4));
        }
        return floats;
    }

    @Override
    public void close() {
        resources.close();
        if (buffer != null) buffer.close();
    }
}
