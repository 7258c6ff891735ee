package io.argus.pipeline.frames;

import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuBuffer;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small, bounded set of off-heap pixel buffers owned by one camera. The camera takes a buffer per decoded frame and
 * whoever finishes with the frame last gives it back. When every buffer is in flight the camera drops the frame:
 * memory stays bounded however slow the consumers are (a file analysed whole waits a while first: {@link #awaitRoom}).
 * Pictures held elsewhere (NVDEC surfaces on the GPU) count against the same bound through {@link #acquireHeld}.
 *
 * <p>A pinned pool allocates page-locked buffers (for a camera whose model may run on a GPU, where CUDA is usable):
 * the GPU's copy engine then reads decoded frames where they lie, without the staging copy through host memory that
 * ordinary buffers need. Those are freed explicitly (when a larger frame size replaces them, and at {@link #close});
 * a pinned allocation that fails makes the pool allocate ordinary buffers from then on, with one warning.
 */
public final class FramePool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("argus.frames");
    /** Whether this process said once that camera frames are page-locked (one line, not one per camera). */
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    private final int capacity;
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private final Map<ByteBuffer, GpuBuffer> pinnedBuffers = new IdentityHashMap<>();
    private boolean pinned;
    private boolean closed;
    private int allocated;
    private int held;
    private long allocatedBytes;

    public FramePool(int capacity) {
        this(capacity, false);
    }

    /** {@code pinned}: page-locked buffers where CUDA is usable on this host (asked at the first allocation). */
    public FramePool(int capacity, boolean pinned) {
        if (capacity < 1) throw new IllegalArgumentException("pool capacity must be positive, got " + capacity);
        this.capacity = capacity;
        this.pinned = pinned;
    }

    /** A buffer of at least {@code bytes} bytes, or null when all {@code capacity} buffers are in use (or closed). */
    public synchronized ByteBuffer acquire(int bytes) {
        if (closed) return null;   // the camera is stopping: as if every buffer were in flight
        while (!free.isEmpty()) {
            ByteBuffer b = free.pop();
            if (b.capacity() >= bytes) return b.clear();
            // A smaller frame size from an earlier connection: let it go, it is replaced below.
            drop(b);
        }
        if (allocated + held >= capacity) return null;
        ByteBuffer b = allocate(bytes);
        allocated++;
        allocatedBytes += bytes;
        return b;
    }

    private ByteBuffer allocate(int bytes) {
        if (pinned && CudaRuntime.problem() != null) pinned = false;   // no GPU here: ordinary buffers, no warning
        if (pinned) {
            try {
                GpuBuffer g = GpuBuffer.pinnedPortable(bytes, "camera frame");
                ByteBuffer b = g.host();
                pinnedBuffers.put(b, g);
                if (TOLD.compareAndSet(false, true)) {
                    LOG.log(Level.INFO, "camera frames in page-locked buffers (camera.pinnedFrames): uploaded to the GPU "
                            + "without staging");
                }
                return b;
            } catch (RuntimeException | LinkageError e) {
                pinned = false;
                LOG.log(Level.WARNING, "page-locked frame buffers unavailable (" + e.getMessage()
                        + "): this camera's frames are copied through staging");
            }
        }
        return ByteBuffer.allocateDirect(bytes);
    }

    /** Forgets a buffer that is not in use, freeing it now when page-locked. */
    private void drop(ByteBuffer b) {
        allocated--;
        allocatedBytes -= b.capacity();
        GpuBuffer g = pinnedBuffers.remove(b);
        if (g != null) g.close();
    }

    public synchronized void release(ByteBuffer buffer) {
        if (free.size() >= capacity) throw new IllegalStateException("buffer released twice");
        if (closed) {
            drop(buffer);
            return;
        }
        free.push(buffer);
        notifyAll();
    }

    /**
     * Waits up to {@code timeoutMs} until a frame could be taken (fewer than {@code capacity} in flight): for a camera
     * that would rather wait than drop a frame (a file analysed whole). True when there is room.
     */
    public synchronized boolean awaitRoom(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long left;
        while (inUse() >= capacity && (left = deadline - System.nanoTime()) > 0) {
            wait(Math.max(1, left / 1_000_000L));
        }
        return inUse() < capacity;
    }

    /** Room for one picture held outside this pool (a GPU surface); false when the camera's frames are at the bound. */
    public synchronized boolean acquireHeld() {
        if (allocated - free.size() + held >= capacity) return false;
        held++;
        return true;
    }

    public synchronized void releaseHeld() {
        if (held == 0) throw new IllegalStateException("held picture released twice");
        held--;
        notifyAll();
    }

    public int capacity() { return capacity; }

    /** Whether the buffers allocated from now on are page-locked. */
    public synchronized boolean pinned() { return pinned; }

    /** Buffers (or held pictures) currently in flight. */
    public synchronized int inUse() { return allocated - free.size() + held; }

    public synchronized long allocatedBytes() { return allocatedBytes; }

    /**
     * Frees the buffers not in use (page-locked ones at once); buffers still in flight are freed as they come back.
     * No buffer is handed out afterwards.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        while (!free.isEmpty()) drop(free.pop());
        notifyAll();
    }
}
