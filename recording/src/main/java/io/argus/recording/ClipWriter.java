package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_rescale_ts;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_copy;
import static org.bytedeco.ffmpeg.global.avformat.AVIO_FLAG_WRITE;
import static org.bytedeco.ffmpeg.global.avformat.av_interleaved_write_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_write_trailer;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_output_context2;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_new_stream;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_write_header;
import static org.bytedeco.ffmpeg.global.avformat.avio_closep;
import static org.bytedeco.ffmpeg.global.avformat.avio_open;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * A time range of one camera's recording as one MP4 file, by stream copy from its segments (nothing decoded or
 * encoded, so a clip costs disk reads, not CPU). The clip starts at the last keyframe at or before the range's start
 * (a clip must start with a picture that decodes on its own: it may begin up to a keyframe interval early) and ends
 * with the last packet before the range's end. Segments meet in the clip at their wall-clock times; a gap between
 * them (the camera was away) stays a gap in the timestamps. A segment whose stream differs from the first one's (codec
 * or picture size: the camera was reconfigured) ends the clip there, since one MP4 track has one set of parameters.
 *
 * <p>The MP4 has its index first ({@code faststart}) so that a browser plays it while it downloads. The file is
 * written beside its destination and moved into place whole.
 */
public final class ClipWriter {
    /** A segment to read: its file and the wall-clock time of its first picture (from its name). */
    public record Part(Path file, long startMs) {}

    /** Nothing of the asked range is recorded: no clip. */
    public static final class NothingRecorded extends IOException {
        NothingRecorded(long fromMs, long toMs) { super("nothing recorded between " + fromMs + " and " + toMs + " ms"); }
    }

    /** {@code camera}'s segments overlapping [fromMs, toMs) in {@code index}, as parts to read, oldest first. */
    public static List<Part> partsOf(SegmentIndex index, String camera, long fromMs, long toMs) {
        List<Part> parts = new java.util.ArrayList<>();
        for (Segment s : index.segments(camera, fromMs, toMs)) parts.add(new Part(index.layout().file(s.name()), s.startMs()));
        return parts;
    }

    /** What went into the clip: wall-clock span of its pictures, packets, and why it ended early, if it did. */
    public record Written(long fromMs, long toMs, long packets, long bytes, String cutShort) {}

    private ClipWriter() {}

    /**
     * Writes the packets of {@code parts} (oldest first) in [fromMs, toMs) to {@code out}.
     *
     * @throws IOException ({@link NothingRecorded} when nothing of the range is recorded), or reading or writing failed
     */
    public static Written write(List<Part> parts, long fromMs, long toMs, Path out) throws IOException {
        if (toMs <= fromMs) throw new IllegalArgumentException("clip: expected from < to, found from " + fromMs + ", to " + toMs);
        Path partial = out.resolveSibling(out.getFileName() + ".partial");
        Files.deleteIfExists(partial);
        Output o = new Output(partial);
        try {
            long startKey = Long.MIN_VALUE;
            for (Part p : parts) {
                if (o.cutShort != null) break;
                if (startKey == Long.MIN_VALUE) {
                    startKey = lastKeyframeAtOrBefore(p, fromMs);
                    if (startKey == Long.MIN_VALUE) continue;   // this segment ends before the range
                }
                copy(p, startKey, toMs, o);
            }
            if (o.packets == 0) throw new NothingRecorded(fromMs, toMs);
            o.finish();
        } catch (IOException | RuntimeException e) {
            o.release();
            Files.deleteIfExists(partial);
            throw e;
        }
        long bytes = Files.size(partial);
        Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new Written(o.firstMs, o.lastMs, o.packets, bytes, o.cutShort);
    }

    /**
     * The wall-clock time of the last keyframe at or before {@code ms} in the segment, or its first keyframe when the
     * segment starts later; {@link Long#MIN_VALUE} when every packet of it is earlier than {@code ms} (the range starts
     * in a later segment, which starts with a keyframe).
     */
    private static long lastKeyframeAtOrBefore(Part part, long ms) throws IOException {
        Input in = new Input(part);
        try {
            long found = Long.MIN_VALUE;
            while (in.next()) {
                long at = in.wallMs();
                if (at < ms) {
                    if (in.key()) found = at;
                    continue;
                }
                if (found == Long.MIN_VALUE && in.key()) found = at;
                if (found != Long.MIN_VALUE) return found;
            }
            return Long.MIN_VALUE;
        } finally {
            in.close();
        }
    }

    private static void copy(Part part, long fromMs, long toMs, Output o) throws IOException {
        Input in = new Input(part);
        try {
            if (o.out == null) o.begin(in);
            else if (!o.sameStream(in)) {
                o.cutShort = "the stream changed at " + part.startMs() + " ms (" + in.describe() + ", the clip's is " + o.described + ")";
                return;
            }
            while (in.next()) {
                long at = in.wallMs();
                if (at < fromMs) continue;
                if (at >= toMs) break;
                o.write(in, at);
            }
        } finally {
            in.close();
        }
    }

    /** One segment open for reading: its packets in order with their wall-clock times. */
    private static final class Input {
        final Part part;
        final AVFormatContext ic = new AVFormatContext(null);
        final AVPacket packet = av_packet_alloc();
        AVRational timeBase;
        long firstDts = AV_NOPTS_VALUE;
        boolean hasPacket;
        boolean endedEarly;

        Input(Part part) throws IOException {
            this.part = part;
            int opened = avformat_open_input(ic, "file:" + part.file().toAbsolutePath(), null, null);
            if (opened < 0) {
                av_packet_free(packet);
                throw new IOException("cannot read the segment " + part.file() + ": " + Ffmpeg.error(opened));
            }
            if (ic.nb_streams() < 1) {
                close();
                throw new IOException("the segment " + part.file() + " holds no stream");
            }
            timeBase = ic.streams(0).time_base();
        }

        /** Moves to the next packet of the video stream; false at the end. */
        boolean next() {
            if (hasPacket) av_packet_unref(packet);
            hasPacket = false;
            while (true) {
                int r = av_read_frame(ic, packet);
                if (r < 0) return false;
                if (packet.stream_index() == 0 && dts() != AV_NOPTS_VALUE) break;
                av_packet_unref(packet);
            }
            hasPacket = true;
            if (firstDts == AV_NOPTS_VALUE) firstDts = dts();
            return true;
        }

        long dts() { return packet.dts() != AV_NOPTS_VALUE ? packet.dts() : packet.pts(); }

        boolean key() { return (packet.flags() & AV_PKT_FLAG_KEY) != 0; }

        /** The segment's name is the wall-clock time of its first packet; the rest follow the stream's own clock. */
        long wallMs() { return part.startMs() + Math.round((dts() - firstDts) * 1000.0 * timeBase.num() / timeBase.den()); }

        AVCodecParameters parameters() { return ic.streams(0).codecpar(); }

        String describe() {
            AVCodecParameters c = parameters();
            return "codec " + c.codec_id() + ", " + c.width() + "x" + c.height();
        }

        void close() {
            if (hasPacket) av_packet_unref(packet);
            hasPacket = false;
            av_packet_free(packet);
            avformat_close_input(ic);
        }
    }

    /** The clip being written. */
    private static final class Output {
        final Path file;
        AVFormatContext out;
        AVStream stream;
        final AVRational timeBase = new AVRational().num(1).den(90_000);
        String described;
        int codecId;
        int width;
        int height;
        long firstMs = Long.MIN_VALUE;
        long lastMs;
        long lastDts = Long.MIN_VALUE;
        long packets;
        String cutShort;

        Output(Path file) { this.file = file; }

        void begin(Input in) throws IOException {
            AVFormatContext oc = new AVFormatContext(null);
            // named: faststart's second pass reopens the file by the context's name to move the index first
            String url = "file:" + file.toAbsolutePath();
            Ffmpeg.check(avformat_alloc_output_context2(oc, null, "mp4", url), "mp4 muxer");
            out = oc;
            stream = avformat_new_stream(oc, null);
            if (stream == null) throw new IOException("cannot add a stream to " + file);
            Ffmpeg.check(avcodec_parameters_copy(stream.codecpar(), in.parameters()), "codec parameters");
            stream.codecpar().codec_tag(0);
            stream.time_base(timeBase);
            codecId = in.parameters().codec_id();
            width = in.parameters().width();
            height = in.parameters().height();
            described = in.describe();
            AVIOContext pb = new AVIOContext(null);
            Ffmpeg.check(avio_open(pb, url, AVIO_FLAG_WRITE), "creating " + file);
            oc.pb(pb);
            AVDictionary options = new AVDictionary(null);
            av_dict_set(options, "movflags", "faststart", 0);
            try {
                Ffmpeg.check(avformat_write_header(oc, options), "starting " + file);
            } finally {
                av_dict_free(options);
            }
        }

        boolean sameStream(Input in) {
            AVCodecParameters c = in.parameters();
            return c.codec_id() == codecId && c.width() == width && c.height() == height;
        }

        /** The packet at wall-clock {@code at}: its times are the clip's (from its first packet), in 1/90,000 s. */
        void write(Input in, long atMs) throws IOException {
            if (firstMs == Long.MIN_VALUE) firstMs = atMs;
            AVPacket p = in.packet;
            long dtsIn = in.dts();
            long ptsIn = p.pts() != AV_NOPTS_VALUE ? p.pts() : dtsIn;
            // the segment's offset in the clip, in the segment's units, then the packet's own offset in it
            long offset = Math.round((in.part.startMs() - firstMs) / 1000.0 * in.timeBase.den() / in.timeBase.num());
            p.dts(dtsIn - in.firstDts + offset);
            p.pts(ptsIn - in.firstDts + offset);
            p.stream_index(0);
            p.pos(-1);
            av_packet_rescale_ts(p, in.timeBase, stream.time_base());
            if (lastDts != Long.MIN_VALUE && p.dts() <= lastDts) {
                // segments that meet with a tick of overlap (rounding of their wall-clock names): keep dts increasing
                long shift = lastDts + 1 - p.dts();
                p.dts(p.dts() + shift);
                p.pts(p.pts() + shift);
            }
            if (p.pts() < p.dts()) p.pts(p.dts());
            lastDts = p.dts();
            lastMs = atMs;
            packets++;
            Ffmpeg.check(av_interleaved_write_frame(out, p), "writing " + file);
        }

        void finish() throws IOException {
            try {
                Ffmpeg.check(av_write_trailer(out), "closing " + file);
            } finally {
                release();
            }
        }

        void release() {
            if (out == null) return;
            AVFormatContext oc = out;
            out = null;
            if (oc.pb() != null && !oc.pb().isNull()) avio_closep(oc.pb());
            avformat_free_context(oc);
        }
    }
}
