package io.argus.pipeline.camera;

import io.argus.pipeline.frames.FrameFate;
import io.argus.pipeline.frames.VideoFrame;

/**
 * What turns one connection to a camera into pictures: FFmpeg's software decoders into host BGR
 * ({@link CpuFrameDecoder}) or NVDEC with the pictures left on the GPU ({@link NvdecFrameDecoder}). One instance per
 * connection attempt, used by the camera's reader thread only; the reader owns reconnects, pacing and stats.
 */
interface FrameDecoder extends AutoCloseable {
    /** "cpu" or "nvdec", as {@code cameras[].decoder} spells it. */
    String name();

    /** Connects and reads the stream's header; throws with FFmpeg's reason when it cannot. */
    void open() throws Exception;

    /** The pictures' size (known after {@link #open}). */
    int width();

    int height();

    /** Decodes the next picture; false at the end of the stream. */
    boolean decode() throws Exception;

    /** Presentation time of the last decoded picture in microseconds. */
    long ptsMicros();

    /**
     * The last decoded picture as a frame for the pipeline, which now owns its pixels; null when the camera's frames
     * in flight are at their bound ({@code camera.poolFrames}), in which case the picture is let go.
     */
    VideoFrame take(FrameStamp stamp);

    /**
     * True while the decoder waits on the device rather than the camera (its turn to create an NVDEC session, or
     * NVDEC busy with other sessions being created): the camera's stall clock does not run meanwhile.
     */
    default boolean waiting() { return false; }

    /**
     * Whether video packets arrived since the last picture (or since {@link #open}): what tells a camera that sends
     * nothing from one whose packets do not make a picture yet (no keyframe so far, or undecodable). Asked by the
     * watchdog from another thread while the reader may be inside {@link #decode}; false when it cannot tell.
     */
    default boolean packetsSincePicture() { return false; }

    /** Back to the start of a file; false when the input cannot seek. */
    boolean rewind();

    @Override
    void close();

    /** Who a frame belongs to and when it was captured. */
    record FrameStamp(String cameraId, long number, double ptsMs, double captureTimeMs, long captureNanos,
                      double decodeMs, FrameFate fate) {}
}
