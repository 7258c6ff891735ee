package io.argus.recording;

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

    /** Takes nothing. */
    PacketSink NONE = new PacketSink() {
        @Override public void streamStarted(AVCodecParameters parameters, AVRational timeBase) {}

        @Override public void packet(AVPacket packet, long wallMs) {}

        @Override public void streamEnded() {}
    };
}
