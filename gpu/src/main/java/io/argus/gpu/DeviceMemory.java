package io.argus.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * Every device allocation of one training backend, so its footprint can be reported (current and peak bytes) and
 * everything is freed together. Device buffers start zero-filled.
 */
public final class DeviceMemory implements AutoCloseable {
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final java.util.Map<GpuBuffer, String> labels = new java.util.HashMap<>();
    private long current;
    private long peak;

    public GpuBuffer allocate(long bytes, String what) {
        GpuBuffer b = GpuBuffer.device(Math.max(bytes, 16), what);
        buffers.add(b);
        labels.put(b, what);
        current += b.bytes();
        peak = Math.max(peak, current);
        return b;
    }

    /** Frees one buffer early (planning scratch). */
    public void free(GpuBuffer b) {
        if (buffers.remove(b)) {
            labels.remove(b);
            current -= b.bytes();
            b.close();
        }
    }

    public long currentBytes() { return current; }

    public long peakBytes() { return peak; }

    /** MiB held now per kind of buffer, largest first ("feature maps 1234, ..."). */
    public String breakdown() {
        java.util.Map<String, Long> by = new java.util.TreeMap<>();
        for (GpuBuffer b : buffers) by.merge(labels.get(b), b.bytes(), Long::sum);
        StringBuilder s = new StringBuilder();
        by.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).forEach(e -> s.append(
                String.format(java.util.Locale.ROOT, "%s%s %.1f", s.isEmpty() ? "" : ", ", e.getKey(),
                        e.getValue() / 1048576.0)));
        return s.toString();
    }

    @Override
    public void close() {
        for (GpuBuffer b : buffers) b.close();
        buffers.clear();
        labels.clear();
        current = 0;
    }
}
