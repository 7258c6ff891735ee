package io.argus.trainer.cuda;

import io.argus.detector.cuda.GpuBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Every device allocation of one training backend, so its footprint can be reported (current and peak bytes) and
 * everything is freed together. Device buffers start zero-filled.
 */
final class DeviceMemory implements AutoCloseable {
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private long current;
    private long peak;

    GpuBuffer allocate(long bytes, String what) {
        GpuBuffer b = GpuBuffer.device(Math.max(bytes, 16), what);
        buffers.add(b);
        current += b.bytes();
        peak = Math.max(peak, current);
        return b;
    }

    /** Frees one buffer early (planning scratch). */
    void free(GpuBuffer b) {
        if (buffers.remove(b)) {
            current -= b.bytes();
            b.close();
        }
    }

    long currentBytes() { return current; }

    long peakBytes() { return peak; }

    @Override
    public void close() {
        for (GpuBuffer b : buffers) b.close();
        buffers.clear();
        current = 0;
    }
}
