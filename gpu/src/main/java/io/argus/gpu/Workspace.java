package io.argus.gpu;

/**
 * cuDNN scratch memory of one network, grown to the largest plan's need. Growing changes the address, so whoever
 * holds it in a variant pack or a captured graph checks {@link #version()}.
 */
public final class Workspace implements AutoCloseable {
    private GpuBuffer buffer;
    private int version;

    public void ensure(long bytes) {
        if (buffer != null && buffer.bytes() >= bytes) return;
        long size = Math.max(bytes, buffer == null ? 1 << 20 : buffer.bytes() * 2);
        if (buffer != null) buffer.close();
        buffer = GpuBuffer.device(size, "cuDNN workspace");
        version++;
    }

    public long address() {
        if (buffer == null) ensure(1 << 20);
        return buffer.address();
    }

    public int version() { return version; }

    @Override
    public void close() {
        if (buffer != null) buffer.close();
        buffer = null;
    }
}
