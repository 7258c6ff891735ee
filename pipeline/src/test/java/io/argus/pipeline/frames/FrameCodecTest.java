package io.argus.pipeline.frames;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.detector.BgrImage;
import io.argus.testkit.Budget;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Frames cross the local event bus as the very same object and buffer: no pixel copy; never onto the wire. */
@Budget(seconds = 5)
class FrameCodecTest {
    @Test
    void localDeliveryHandsOverTheSameFrameAndBuffer() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            FrameCodec.register(vertx.eventBus());
            FramePool pool = new FramePool(1);
            ByteBuffer pixels = pool.acquire(2 * 2 * 3);
            VideoFrame sent = new VideoFrame("cam", 7, 0, 0, 0, 0, new BgrImage(2, 2, 6, pixels), pool, pixels, null);
            CompletableFuture<VideoFrame> got = new CompletableFuture<>();
            vertx.eventBus().<VideoFrame>localConsumer("frames.test", m -> got.complete(m.body()))
                    .completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            vertx.eventBus().send("frames.test", sent, FrameCodec.LOCAL);
            VideoFrame received = got.get(5, TimeUnit.SECONDS);
            assertSame(sent, received);
            assertSame(pixels, received.image().pixels(), "the off-heap pixels were not copied");
            received.release();
            assertEquals(0, pool.inUse(), "the last release returns the buffer to its camera's pool");
        } finally {
            vertx.close();
        }
    }

    @Test
    void framesNeverGoOnTheWire() {
        FrameCodec c = new FrameCodec();
        assertThrows(UnsupportedOperationException.class, () -> c.encodeToWire(Buffer.buffer(), null));
        assertThrows(UnsupportedOperationException.class, () -> c.decodeFromWire(0, Buffer.buffer()));
    }

    @Test
    void doubleReleaseIsAnError() {
        FramePool pool = new FramePool(1);
        ByteBuffer b = pool.acquire(12);
        VideoFrame f = new VideoFrame("cam", 1, 0, 0, 0, 0, new BgrImage(2, 2, 6, b), pool, b, null);
        f.retain();
        f.release();
        f.release();
        assertThrows(IllegalStateException.class, f::release);
    }
}
