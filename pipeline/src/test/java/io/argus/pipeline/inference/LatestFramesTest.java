package io.argus.pipeline.inference;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The batcher's queue: latest frame wins per camera, batches by size or wait, buffers always go back. */
@Budget(seconds = 5)
class LatestFramesTest {
    private final FramePool pool = new FramePool(16);
    private final AtomicInteger superseded = new AtomicInteger();

    private VideoFrame frame(String camera, long n) {
        ByteBuffer b = pool.acquire(4 * 4 * 3);
        return new VideoFrame(camera, n, n, 0, System.nanoTime(), 0, new BgrImage(4, 4, 12, b), pool, b, superseded::incrementAndGet);
    }

    @Test
    void aNewerFrameSupersedesTheWaitingOneOfItsCamera() throws Exception {
        LatestFrames q = new LatestFrames(4, 0);
        VideoFrame a1 = frame("a", 1), a2 = frame("a", 2), b1 = frame("b", 1);
        q.offer(a1);
        q.offer(b1);
        q.offer(a2);
        assertEquals(2, q.depth());
        assertEquals(1, superseded.get());
        assertEquals(0, a1.references(), "the superseded frame went back to the pool");
        LatestFrames.Batch batch = q.takeBatch();
        assertEquals(List.of(b1, a2), batch.frames(), "oldest waiting first; a2 arrived after b1");
        batch.frames().forEach(VideoFrame::release);
        assertEquals(0, pool.inUse());
    }

    @Test
    void batchesAreCappedAtMaxBatch() throws Exception {
        LatestFrames q = new LatestFrames(2, 0);
        for (String c : new String[]{"a", "b", "c"}) q.offer(frame(c, 1));
        assertEquals(2, q.takeBatch().frames().size());
        assertEquals(1, q.takeBatch().frames().size());
    }

    @Test
    void waitsUpToMaxWaitForMoreActiveCamerasThenGoesWithWhatItHas() throws Exception {
        LatestFrames q = new LatestFrames(4, 300);
        q.offer(frame("a", 1));
        q.offer(frame("b", 1));
        q.takeBatch().frames().forEach(VideoFrame::release); // both cameras now count as active
        q.offer(frame("a", 2));
        long t0 = System.nanoTime();
        LatestFrames.Batch partial = q.takeBatch();
        double waitedMs = (System.nanoTime() - t0) / 1e6;
        assertEquals(1, partial.frames().size());
        assertTrue(waitedMs >= 250, "waited " + waitedMs + " ms for camera b, expected about maxWaitMs=300");

        q.offer(frame("a", 3));
        CompletableFuture<LatestFrames.Batch> taken = takenOnceWaiting(q);
        t0 = System.nanoTime();
        q.offer(frame("b", 3));
        LatestFrames.Batch full = taken.get(5, TimeUnit.SECONDS);
        assertEquals(2, full.frames().size(), "both active cameras in one batch");
        assertTrue((System.nanoTime() - t0) / 1e6 < 200, "a full batch goes at once");
    }

    @Test
    void closeWakesTheWorkerAndReleasesWaitingFrames() throws Exception {
        LatestFrames q = new LatestFrames(4, 1000);
        CompletableFuture<LatestFrames.Batch> taken = takenOnceWaiting(q);
        q.close();
        assertNull(taken.get(5, TimeUnit.SECONDS));
        VideoFrame late = frame("a", 9);
        q.offer(late);
        assertEquals(0, late.references(), "frames offered after close are released");
        assertEquals(0, pool.inUse());
    }

    @Test
    void thePoolIsBoundedAndReusesBuffers() {
        FramePool p = new FramePool(2);
        ByteBuffer x = p.acquire(100), y = p.acquire(100);
        assertNull(p.acquire(100), "a third buffer is refused: the camera drops the frame instead");
        p.release(x);
        assertSame(x, p.acquire(100));
        p.release(y);
        ByteBuffer bigger = p.acquire(200);
        assertEquals(200, bigger.capacity(), "a smaller pooled buffer is replaced when the frame size grows");
    }

    /** {@code q.takeBatch()} on another thread, returned once that thread waits inside it (its state says so). */
    private static CompletableFuture<LatestFrames.Batch> takenOnceWaiting(LatestFrames q) throws Exception {
        AtomicReference<Thread> taker = new AtomicReference<>();
        CompletableFuture<LatestFrames.Batch> taken = CompletableFuture.supplyAsync(() -> {
            taker.set(Thread.currentThread());
            try {
                return q.takeBatch();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        // polled every millisecond: the wait inside may be as short as maxWaitMs
        waitFor(() -> taker.get() != null && (taker.get().getState() == Thread.State.WAITING
                || taker.get().getState() == Thread.State.TIMED_WAITING), 5_000, 1, "the taker waiting in takeBatch");
        return taken;
    }

}
