package io.argus.recording;

import java.nio.ByteBuffer;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * Where a camera's connection hands its video packets before decoding them (the recorder): called on the reader's
 * thread, so an implementation returns at once and keeps nothing of what it is given but references it takes.
 */
public interface PacketSink {
    /** A connection opened: the packets that follow are of a stream with these parameters and this time base. */
    void streamStarted(AVCodecParameters parameters, AVRational timeBase);

    /** A video packet as read, at {@code wallMs}; the caller reuses it when this returns. */
    void packet(AVPacket packet, long wallMs);

    /** The connection ended (a reconnect follows, or the camera stopped). */
    void streamEnded();

    /** Whether this sink looks at decoded pictures too (motion mode): only then does the reader call {@link #picture}. */
    default boolean wantsPictures() { return false; }

    /** A decoded picture, BGR with {@code stride} bytes a row, shown at {@code wallMs}; nothing of it may be kept. */
    default void picture(ByteBuffer bgr, int width, int height, int stride, long wallMs) {}

    /** Takes nothing. */
    PacketSink NONE = new PacketSink() {
        @Override public void streamStarted(AVCodecParameters parameters, AVRational timeBase) {}

        @Override public void packet(AVPacket packet, long wallMs) {}

        @Override public void streamEnded() {}
    };
}
