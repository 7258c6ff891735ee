package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * What a segment file holds, read from the file alone: its video packets, keyframes and the time they span. What
 * rebuilds the index after a crash, and what the tests compare with the source. A file cut short by a kill reads up
 * to its last whole fragment.
 */
public final class SegmentProbe {
    /** {@code durationMs}: from the first packet's presentation to the last one's end. */
    public record Contents(long packets, long keyframes, long durationMs, long bytes, boolean startsWithKeyframe) {}

    private SegmentProbe() {}

    public static Contents read(Path file) throws IOException {
        long bytes = Files.size(file);
        AVFormatContext ic = new AVFormatContext(null);
        int opened = avformat_open_input(ic, "file:" + file.toAbsolutePath(), null, null);
        if (opened < 0) {
            if (bytes == 0) return new Contents(0, 0, 0, 0, false);
            throw new IOException("cannot read the segment " + file + ": " + Ffmpeg.error(opened));
        }
        AVPacket p = av_packet_alloc();
        try {
            long packets = 0;
            long keys = 0;
            long first = Long.MAX_VALUE;
            long end = Long.MIN_VALUE;
            boolean startsWithKey = false;
            AVRational tb = null;
            while (av_read_frame(ic, p) >= 0) {
                try {
                    if (p.stream_index() != 0) continue;
                    if (tb == null) tb = ic.streams(0).time_base();
                    boolean key = (p.flags() & AV_PKT_FLAG_KEY) != 0;
                    if (packets == 0) startsWithKey = key;
                    packets++;
                    if (key) keys++;
                    long pts = p.pts() != AV_NOPTS_VALUE ? p.pts() : p.dts();
                    if (pts != AV_NOPTS_VALUE) {
                        first = Math.min(first, pts);
                        end = Math.max(end, pts + Math.max(0, p.duration()));
                    }
                } finally {
                    av_packet_unref(p);
                }
            }
            long ms = tb == null || first == Long.MAX_VALUE ? 0
                    : Math.round((end - first) * 1000.0 * tb.num() / tb.den());
            return new Contents(packets, keys, ms, bytes, startsWithKey);
        } finally {
            av_packet_free(p);
            avformat_close_input(ic);
        }
    }
}
