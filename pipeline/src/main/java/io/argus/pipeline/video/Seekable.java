package io.argus.pipeline.video;

import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.global.avformat;

/**
 * Whether an open input can go back to its start: a regular file can; a named pipe, a socket or a device cannot,
 * even though FFmpeg's seek may "succeed" inside the bytes it has buffered. A looping file camera rewinds the first
 * kind and reopens the second (its writer may come back: an unplugged source).
 */
public final class Seekable {
    private Seekable() {}

    public static boolean of(AVFormatContext format) {
        if (format == null || format.isNull()) return false;
        AVIOContext pb = format.pb();
        return pb != null && !pb.isNull() && (pb.seekable() & avformat.AVIO_SEEKABLE_NORMAL) != 0;
    }
}
