package io.argus.pipeline.frames;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuBuffer;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A camera's pixel buffers: bounded, reused, replaced when frames grow, page-locked when asked and CUDA is usable
 * (ordinary buffers otherwise, without failing), and after close no buffer handed out while those in flight still
 * come back.
 */
@Budget(seconds = 5)
class FramePoolTest {
    @Test
    void boundedReusedAndReplacedWhenFramesGrow() {
        FramePool pool = new FramePool(2);
        ByteBuffer a = pool.acquire(100);
        ByteBuffer b = pool.acquire(100);
        assertNull(pool.acquire(100), "a third buffer over the bound of 2");
        assertEquals(2, pool.inUse());
        pool.release(a);
        assertSame(a, pool.acquire(50), "a free buffer large enough is reused");
        pool.release(a);
        ByteBuffer c = pool.acquire(1000);
        assertNotSame(a, c, "a larger frame replaces the smaller buffer");
        assertTrue(c.capacity() >= 1000);
        assertEquals(1100, pool.allocatedBytes(), "the replaced buffer's bytes are let go");
        pool.release(b);
        pool.release(c);
    }

    @Test
    void closedPoolHandsNothingOutAndTakesBuffersBack() {
        FramePool pool = new FramePool(3);
        ByteBuffer inFlight = pool.acquire(64);
        pool.release(pool.acquire(64));
        pool.close();
        assertNull(pool.acquire(64), "no buffer after close");
        pool.release(inFlight);   // a frame still in flight when the camera stopped comes back
        assertEquals(0, pool.inUse());
        assertEquals(0, pool.allocatedBytes());
        assertThrows(IllegalArgumentException.class, () -> new FramePool(0));
    }

    @Test
    void pinnedWithoutCudaFallsBackToOrdinaryBuffers() {
        assumeTrue(!CudaRuntime.available(), "this host has CUDA: the GPU case below covers it");
        FramePool pool = new FramePool(2, true);
        ByteBuffer b = pool.acquire(4096);
        assertTrue(b.isDirect() && b.capacity() >= 4096);
        assertFalse(pool.pinned(), "no CUDA: ordinary buffers from the first allocation on");
        pool.release(b);
        pool.close();
    }

    @Test
    @Tag("gpu")
    void pinnedBuffersArePageLockedAndFreed() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        FramePool pool = new FramePool(2, true);
        ByteBuffer b = pool.acquire(1 << 20);
        assertTrue(pool.pinned());
        assertTrue(GpuBuffer.pinnedHost(new Pointer(b).address()), "the buffer is page-locked");
        pool.release(b);
        ByteBuffer larger = pool.acquire(2 << 20);   // frees the first one
        assertTrue(GpuBuffer.pinnedHost(new Pointer(larger).address()));
        long address = new Pointer(larger).address();
        pool.release(larger);
        pool.close();
        assertFalse(GpuBuffer.pinnedHost(address), "closing freed the page-locked buffer");
        assertFalse(GpuBuffer.pinnedHost(new Pointer(ByteBuffer.allocateDirect(64)).address()));
    }
}
