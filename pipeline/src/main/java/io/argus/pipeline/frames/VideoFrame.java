package io.argus.pipeline.frames;

import io.argus.detector.BgrImage;
import io.argus.detector.Picture;
import io.argus.detector.cuda.Nv12Download;
import io.argus.detector.cuda.Nv12Surface;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One decoded frame of a camera plus when and how it was captured. Its pixels are either BGR bytes in a pooled
 * off-heap buffer (the CPU decoder) or an NV12 surface NVDEC left on the GPU (held out of the decoder's pool).
 * Reference counted: the camera creates it with one reference; each extra holder (the snapshot encoder) retains it,
 * and the pixels go back (buffer to its pool, surface to the decoder) when the last holder releases it. Never leaves
 * this JVM.
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
    private final Picture picture;
    private final int device;            // the CUDA device a GPU picture lives on; -1 for host pixels
    private final Runnable free;         // gives the pixels back, once the last reference is released
    private final AtomicInteger refs = new AtomicInteger(1);
    private final FrameFate fate;        // told when the frame is superseded or taken (may be null)
    private volatile BgrImage hostCopy;  // a GPU picture's host pixels, downloaded on first demand

    /** A frame of host BGR pixels in {@code buffer}, which goes back to {@code pool} (if any) at the last release. */
    public VideoFrame(String cameraId, long number, double ptsMs, double captureTimeMs, long captureNanos,
                      double decodeMs, BgrImage image, FramePool pool, ByteBuffer buffer, FrameFate fate) {
        this(cameraId, number, ptsMs, captureTimeMs, captureNanos, decodeMs, image, -1,
                pool != null ? () -> pool.release(buffer) : null, fate);
    }

    private VideoFrame(String cameraId, long number, double ptsMs, double captureTimeMs, long captureNanos,
                       double decodeMs, Picture picture, int device, Runnable free, FrameFate fate) {
        this.cameraId = cameraId;
        this.number = number;
        this.ptsMs = ptsMs;
        this.captureTimeMs = captureTimeMs;
        this.captureNanos = captureNanos;
        this.decodeMs = decodeMs;
        this.picture = picture;
        this.device = device;
        this.free = free;
        this.fate = fate;
    }

    /** A frame whose pixels stay on CUDA device {@code device}; {@code free} gives the surface back to its decoder. */
    public static VideoFrame onGpu(String cameraId, long number, double ptsMs, double captureTimeMs, long captureNanos,
                                   double decodeMs, Nv12Surface surface, int device, Runnable free,
                                   FrameFate fate) {
        return new VideoFrame(cameraId, number, ptsMs, captureTimeMs, captureNanos, decodeMs, surface, device, free,
                fate);
    }

    public String cameraId() { return cameraId; }

    public long number() { return number; }

    public double ptsMs() { return ptsMs; }

    public double captureTimeMs() { return captureTimeMs; }

    public long captureNanos() { return captureNanos; }

    public double decodeMs() { return decodeMs; }

    /** The pixels as the detector takes them (host BGR or a GPU surface); valid until the last {@link #release()}. */
    public Picture picture() { return picture; }

    /** The CUDA device the pixels live on (an NVDEC frame's decoder's); -1 for host pixels. */
    public int device() { return device; }

    /** Whether the pixels are on the GPU (an NVDEC frame). */
    public boolean onGpu() { return device >= 0; }

    public int width() { return picture.width(); }

    public int height() { return picture.height(); }

    /**
     * Host BGR pixels, for the few that need them (snapshots, frames kept for training): the frame's own for a CPU
     * frame; a GPU frame is downloaded on first demand (NV12, 1.5 bytes a pixel) and converted, once per frame. The
     * caller must hold a reference.
     */
    public BgrImage image() {
        if (picture instanceof BgrImage im) return im;
        BgrImage copy = hostCopy;
        if (copy == null) {
            synchronized (this) {
                if (hostCopy == null) hostCopy = Nv12Download.toBgr((Nv12Surface) picture, device);
                copy = hostCopy;
            }
        }
        return copy;
    }

    public VideoFrame retain() {
        if (refs.getAndIncrement() <= 0) throw new IllegalStateException("frame " + number + " already released");
        return this;
    }

    public void release() {
        int left = refs.decrementAndGet();
        if (left == 0) {
            if (free != null) free.run();
        } else if (left < 0) {
            throw new IllegalStateException("frame " + number + " of " + cameraId + " released twice");
        }
    }

    /** Dropped unprocessed because a newer frame of the same camera took its place (latest frame wins). */
    public void supersede() {
        if (fate != null) fate.superseded();
        release();
    }

    /** Taken out of the batcher's queue into a batch for detection. */
    public void taken() {
        if (fate != null) fate.taken();
    }

    public int references() { return refs.get(); }
}
