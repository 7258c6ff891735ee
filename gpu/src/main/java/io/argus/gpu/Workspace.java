package io.argus.gpu;

/**
 * cuDNN scratch memory of one network, grown to exactly what the largest plan (or, while planning, the largest
 * candidate being timed) needs, and {@link #fit fitted} to the chosen plans' need once planning is over, so the
 * planning transient does not stay. With a {@link DeviceMemory} ledger its bytes are counted there (the training
 * backend reports current and peak). Growing changes the address, so whoever holds it in a variant pack or a
 * captured graph checks {@link #version()}.
 */
public final class Workspace implements AutoCloseable {
    private static final long MINIMUM = 1 << 20;

    private final DeviceMemory ledger;
    private final String label;
    private GpuBuffer buffer;
    private int version;

    public Workspace() {
        this(null, "cuDNN workspace");
    }

    /** Allocations counted in {@code ledger} under {@code label} (null: not counted). */
    public Workspace(DeviceMemory ledger, String label) {
        this.ledger = ledger;
        this.label = label;
    }

    /** At least {@code bytes}: a smaller buffer is freed first, then one of exactly that size allocated. */
    public void ensure(long bytes) {
        if (buffer != null && buffer.bytes() >= bytes) return;
        replace(Math.max(bytes, MINIMUM));
    }

    /** Exactly {@code bytes} (at least 1 MiB), shrinking too: after planning, what the chosen plans need. */
    public void fit(long bytes) {
        long size = Math.max(bytes, MINIMUM);
        if (buffer != null && buffer.bytes() == size) return;
        replace(size);
    }

    private void replace(long size) {
        release();
        buffer = ledger != null ? ledger.allocate(size, label) : GpuBuffer.device(size, label);
        version++;
    }

    private void release() {
        if (buffer == null) return;
        if (ledger != null) ledger.free(buffer);
        else buffer.close();
        buffer = null;
    }

    public long address() {
        if (buffer == null) ensure(MINIMUM);
        return buffer.address();
    }

    public long bytes() { return buffer == null ? 0 : buffer.bytes(); }

    public int version() { return version; }

    @Override
    public void close() {
        release();
    }
}
