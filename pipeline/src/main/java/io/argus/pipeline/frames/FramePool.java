package io.argus.pipeline.frames;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A small, bounded set of off-heap pixel buffers owned by one camera. The camera takes a buffer per decoded frame and
 * whoever finishes with the frame last gives it back. When every buffer is in flight the camera drops the frame:
 * memory stays bounded however slow the consumers are (a file analysed whole waits a while first: {@link #awaitRoom}). Pictures held elsewhere (NVDEC surfaces on the GPU) count
 * against the same bound through {@link #acquireHeld}.
 */
public final class FramePool {
    private final int capacity;
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private int allocated;
    private int held;
    private long allocatedBytes;

    public FramePool(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("pool capacity must be positive, got " + capacity);
        this.capacity = capacity;
    }

    /** A buffer of at least {@code bytes} bytes, or null when all {@code capacity} buffers are in use. */
    public synchronized ByteBuffer acquire(int bytes) {
        while (!free.isEmpty()) {
            ByteBuffer b = free.pop();
            if (b.capacity() >= bytes) return b.clear();
            // A smaller frame size from an earlier connection: let it go, it is replaced below.
            allocated--;
            allocatedBytes -= b.capacity();
        }
        if (allocated + held >= capacity) return null;
        allocated++;
        allocatedBytes += bytes;
        return ByteBuffer.allocateDirect(bytes);
    }

    public synchronized void release(ByteBuffer buffer) {
        if (free.size() >= capacity) throw new IllegalStateException("buffer released twice");
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

    /** Buffers (or held pictures) currently in flight. */
    public synchronized int inUse() { return allocated - free.size() + held; }

    public synchronized long allocatedBytes() { return allocatedBytes; }
}
