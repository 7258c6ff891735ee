package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cudaDeviceSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaFreeHost;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaHostAlloc;
import static org.bytedeco.cuda.global.cudart.cudaHostAllocPortable;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMallocHost;
import static org.bytedeco.cuda.global.cudart.cudaMallocManaged;
import static org.bytedeco.cuda.global.cudart.cudaMemAttachGlobal;
import static org.bytedeco.cuda.global.cudart.cudaMemGetInfo;
import static org.bytedeco.cuda.global.cudart.cudaMemoryTypeHost;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaPointerGetAttributes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.cuda.cudart.cudaPointerAttributes;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * One allocation: device memory (kernels only), managed memory (host and kernels, unified) or pinned host memory
 * (staging for asynchronous copies). Managed and pinned buffers expose a host view for Java to read and write.
 */
public final class GpuBuffer implements AutoCloseable {
    public enum Kind { DEVICE, MANAGED, PINNED }

    /** Headroom kept free on the device when sizing a managed allocation. */
    private static final long MANAGED_HEADROOM = 64L << 20;

    private final Pointer pointer;
    private final long bytes;
    private final Kind kind;
    private final String what;
    private boolean closed;

    private GpuBuffer(Pointer pointer, long bytes, Kind kind, String what) {
        this.pointer = pointer;
        this.bytes = bytes;
        this.kind = kind;
        this.what = what;
    }

    /** Device memory, zero-filled (padded channels must hold finite values). */
    public static GpuBuffer device(long bytes, String what) {
        Pointer p = new Pointer();
        Status.cuda(cudaMalloc(p, Math.max(bytes, 16)), "cudaMalloc " + mib(bytes) + " for " + what);
        Status.cuda(cudaMemset(p, 0, Math.max(bytes, 16)), "cudaMemset " + what);
        // cudaMemset runs on the legacy stream, which our non-blocking streams do not wait for
        Status.cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after cudaMemset " + what);
        return new GpuBuffer(p, bytes, Kind.DEVICE, what);
    }

    /**
     * Managed (unified) memory, not cleared (callers write before kernels read). Refuses when the request exceeds what {@code cudaMemGetInfo} reports
     * free: an over-committed managed allocation can hang a shared GPU, not only this process.
     */
    public static GpuBuffer managed(long bytes, String what) {
        long free = freeDeviceMemory();
        if (bytes + MANAGED_HEADROOM > free) {
            throw new CudaException("refusing a managed allocation of " + mib(bytes) + " for " + what + ": only "
                    + mib(free) + " free on the device (cudaMemGetInfo); an over-committed managed allocation can "
                    + "hang a shared GPU. Use memory: device or a smaller max batch");
        }
        Pointer p = new Pointer();
        Status.cuda(cudaMallocManaged(p, Math.max(bytes, 16), cudaMemAttachGlobal),
                "cudaMallocManaged " + mib(bytes) + " for " + what);
        return new GpuBuffer(p, bytes, Kind.MANAGED, what);
    }

    /** Page-locked host memory for staging copies. */
    public static GpuBuffer pinned(long bytes, String what) {
        Pointer p = new Pointer();
        Status.cuda(cudaMallocHost(p, Math.max(bytes, 16)), "cudaMallocHost " + mib(bytes) + " for " + what);
        return new GpuBuffer(p, bytes, Kind.PINNED, what);
    }

    /**
     * Page-locked host memory that every GPU's context treats as pinned (cudaHostAllocPortable): buffers a producer
     * fills for any GPU to copy from directly, such as a camera's decoded frames.
     */
    public static GpuBuffer pinnedPortable(long bytes, String what) {
        Pointer p = new Pointer();
        Status.cuda(cudaHostAlloc(p, Math.max(bytes, 16), cudaHostAllocPortable),
                "cudaHostAlloc " + mib(bytes) + " for " + what);
        return new GpuBuffer(p, bytes, Kind.PINNED, what);
    }

    /**
     * Whether {@code address} lies in page-locked host memory that CUDA knows (allocated pinned or registered), so
     * that a copy engine can read it directly. False for pageable memory, device memory, or when CUDA cannot say.
     */
    public static boolean pinnedHost(long address) {
        try (cudaPointerAttributes a = new cudaPointerAttributes()) {
            if (cudaPointerGetAttributes(a, DevicePointer.at(address)) != 0) {
                cudaGetLastError();   // not an error worth keeping: the pointer is simply not CUDA's
                return false;
            }
            return a.type() == cudaMemoryTypeHost;
        }
    }

    public static long freeDeviceMemory() {
        SizeTPointer free = new SizeTPointer(1);
        SizeTPointer total = new SizeTPointer(1);
        Status.cuda(cudaMemGetInfo(free, total), "cudaMemGetInfo");
        return free.get();
    }

    public long address() {
        check();
        return pointer.address();
    }

    public long bytes() { return bytes; }

    public Kind kind() { return kind; }

    /** Host view (managed or pinned only), little-endian, covering the whole buffer (at most 2 GiB). */
    public ByteBuffer host() {
        check();
        if (kind == Kind.DEVICE) throw new IllegalStateException(what + " is device memory: no host view");
        if (bytes > Integer.MAX_VALUE) throw new IllegalStateException(what + ": host view over 2 GiB");
        return new BytePointer(pointer).capacity(bytes).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A pointer for C calls, at a byte offset into this buffer. */
    public Pointer at(long byteOffset) {
        return new DevicePointer(address() + byteOffset, bytes - byteOffset);
    }

    private void check() {
        if (closed) throw new IllegalStateException(what + " was freed");
    }

    public static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (kind == Kind.PINNED) cudaFreeHost(pointer);
        else cudaFree(pointer);
    }
}
