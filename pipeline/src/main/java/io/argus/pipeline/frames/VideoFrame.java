package io.argus.pipeline.frames;

import io.argus.detector.BgrImage;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One decoded frame of a camera: BGR pixels in a pooled off-heap buffer plus when and how it was captured.
 * Reference counted: the camera creates it with one reference; each extra holder (the snapshot encoder) retains it,
 * and the buffer returns to its pool when the last holder releases it. Never leaves this JVM.
 *
 * @param number frame number of the camera, counting from 0 when the camera was added (continues across reconnects)
 * @param ptsMs presentation time of the source in ms (restarts with the stream after a reconnect)
 * @param captureTimeMs wall-clock time (epoch ms, sub-ms fraction) when the frame left the camera
 * @param captureNanos {@link System#nanoTime()} at the same moment, for intervals
 * @param decodeMs time spent in FFmpeg demux + decode + conversion to BGR for this frame
 */
public final class VideoFrame {
    private final String cameraId;
    private final long number;
    private final double ptsMs;
    private final double captureTimeMs;
    private final long captureNanos;
    private final double decodeMs;
    private final BgrImage image;
    private final FramePool pool;
    private final ByteBuffer buffer;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final Runnable onSuperseded;

    public VideoFrame(String cameraId, long number, double ptsMs, double captureTimeMs, long captureNanos,
                      double decodeMs, BgrImage image, FramePool pool, ByteBuffer buffer, Runnable onSuperseded) {
        this.cameraId = cameraId;
        this.number = number;
        this.ptsMs = ptsMs;
        this.captureTimeMs = captureTimeMs;
        this.captureNanos = captureNanos;
        this.decodeMs = decodeMs;
        this.image = image;
        this.pool = pool;
        this.buffer = buffer;
        this.onSuperseded = onSuperseded;
    }

    public String cameraId() { return cameraId; }

    public long number() { return number; }

    public double ptsMs() { return ptsMs; }

    public double captureTimeMs() { return captureTimeMs; }

    public long captureNanos() { return captureNanos; }

    public double decodeMs() { return decodeMs; }

    /** The pixels; valid until the last {@link #release()}. */
    public BgrImage image() { return image; }

    public VideoFrame retain() {
        if (refs.getAndIncrement() <= 0) throw new IllegalStateException("frame " + number + " already released");
        return this;
    }

    public void release() {
        int left = refs.decrementAndGet();
        if (left == 0) {
            if (pool != null) pool.release(buffer);
        } else if (left < 0) {
            throw new IllegalStateException("frame " + number + " of " + cameraId + " released twice");
        }
    }

    /** Dropped unprocessed because a newer frame of the same camera took its place (latest frame wins). */
    public void supersede() {
        if (onSuperseded != null) onSuperseded.run();
        release();
    }

    public int references() { return refs.get(); }
}
