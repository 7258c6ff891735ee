package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_ref;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_rescale_ts;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_copy;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;
import static org.bytedeco.ffmpeg.global.avformat.AVIO_FLAG_WRITE;
import static org.bytedeco.ffmpeg.global.avformat.av_write_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_write_trailer;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_output_context2;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_new_stream;
import static org.bytedeco.ffmpeg.global.avformat.avformat_write_header;
import static org.bytedeco.ffmpeg.global.avformat.avio_closep;
import static org.bytedeco.ffmpeg.global.avformat.avio_open;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * One camera's video stream written as it came (stream copy, no re-encoding) into MP4 segments: a segment starts at a
 * keyframe, and the first keyframe after {@code segmentMs} of stream time starts the next one, so each file plays on
 * its own. The MP4 is fragmented (a moof and mdat per keyframe, and at least one per second) and each fragment is
 * handed to the OS as it is made: a process killed mid-segment leaves a file that plays up to its last fragment (at
 * most about a second lost), with no index at its end to be missing.
 *
 * <p>Timestamps: each segment starts at 0 (its first packet's dts); decoding times are kept strictly increasing (a
 * camera that repeats one is nudged on by a tick, as the muxer would refuse it) and a packet without times gets them
 * from the clock. Wall-clock times come from the stream's own clock, anchored to the clock of the packet that started
 * the recording and anchored again when the two drift more than {@link #REANCHOR_MS} apart (a camera whose clock runs
 * fast or slow, a stream that jumped): consecutive segments then meet without gaps or overlaps from network jitter.
 *
 * <p>Used by one thread.
 */
public final class SegmentWriter implements AutoCloseable {
    /** How far the stream's clock may drift from the wall clock before the segments' times follow the wall clock. */
    static final long REANCHOR_MS = 2_000;

    /** What the writer tells about its files. */
    public interface Listener {
        /** A segment's file was created; nothing of it is readable yet. */
        void opened(Segment segment);

        /** A segment's file is complete and closed. */
        void closed(Segment segment);
    }

    private final String camera;
    private final StorageLayout layout;
    private final AVCodecParameters codec = avcodec_parameters_alloc();
    private final AVRational timeBase;
    private final long segmentMs;
    private final Listener listener;
    private final AVPacket copy = av_packet_alloc();

    private AVFormatContext out;
    private AVStream stream;
    private String name;
    private long startMs;
    private long baseDts;
    private long lastDts;
    private long lastPts;
    private long firstPts;
    private long lastDuration;
    private long packets;
    private long fragmentsWritten;
    private long bytes;
    private boolean anchored;
    private long anchorWallMs;
    private long anchorDts;
    private long skippedBeforeKeyframe;
    private boolean closed;

    /**
     * @param parameters the stream's codec parameters (copied: the caller's may go with its connection)
     * @param timeBase   the unit of the packets' timestamps
     */
    public SegmentWriter(String camera, StorageLayout layout, AVCodecParameters parameters, AVRational timeBase,
                         long segmentMs, Listener listener) {
        StorageLayout.requireCamera(camera);
        if (segmentMs < 1_000) throw new IllegalArgumentException("segment length: expected 1000 ms or more, found " + segmentMs);
        this.camera = camera;
        this.layout = layout;
        this.timeBase = new AVRational().num(timeBase.num()).den(timeBase.den());
        this.segmentMs = segmentMs;
        this.listener = listener;
        if (avcodec_parameters_copy(codec, parameters) < 0) throw new IllegalStateException("cannot copy the codec parameters");
    }

    /** Packets dropped because no keyframe had started a segment yet. */
    public long skippedBeforeKeyframe() { return skippedBeforeKeyframe; }

    /**
     * Fragments handed to the OS without an error since this writer was made: what proves the disk takes this
     * writer's bytes (a packet's write only fills the muxer's buffer; the fragment is written out when the next
     * keyframe cuts it, or when the segment is finished).
     */
    public long fragmentsWritten() { return fragmentsWritten; }

    /** The segment being written, null between segments. */
    public Segment current() {
        return out == null ? null : new Segment(camera, name, startMs, -1, bytes, packets);
    }

    /**
     * Writes one packet (the caller keeps it: it is referenced, not taken), received at {@code wallMs}. A keyframe
     * may close the segment in progress and start the next.
     */
    public void write(AVPacket packet, long wallMs) throws IOException {
        if (closed) throw new IllegalStateException("writer of " + camera + " is closed");
        boolean key = (packet.flags() & AV_PKT_FLAG_KEY) != 0;
        long dts = packet.dts() != AV_NOPTS_VALUE ? packet.dts() : packet.pts();
        if (dts == AV_NOPTS_VALUE) dts = out == null ? ticks(wallMs) : lastDts + Math.max(1, lastDuration);
        long ms = anchored ? wallAt(dts) : wallMs;
        if (anchored && Math.abs(ms - wallMs) > REANCHOR_MS) {
            anchored = false;   // the stream's clock left the wall clock: follow the wall clock from the next segment
        }
        if (key && (out == null || !anchored || millis(dts - baseDts) >= segmentMs || dts < baseDts)) {
            finish();
            if (!anchored) {
                anchored = true;
                anchorWallMs = wallMs;
                anchorDts = dts;
            }
            begin(wallAt(dts), dts);
        }
        if (out == null) {
            skippedBeforeKeyframe++;
            return;
        }
        Ffmpeg.check(av_packet_ref(copy, packet), "packet reference");
        try {
            long pts = packet.pts() != AV_NOPTS_VALUE ? packet.pts() : dts;
            long outDts = Math.max(dts - baseDts, packets == 0 ? 0 : lastDts - baseDts + 1);
            long outPts = Math.max(pts - baseDts, outDts);
            copy.stream_index(0);
            copy.dts(outDts);
            copy.pts(outPts);
            if (copy.duration() <= 0 && packets > 0) copy.duration(Math.max(1, outDts - (lastDts - baseDts)));
            lastDuration = copy.duration() > 0 ? copy.duration() : lastDuration;
            lastDts = outDts + baseDts;
            lastPts = Math.max(lastPts, outPts + baseDts);
            firstPts = packets == 0 ? outPts + baseDts : Math.min(firstPts, outPts + baseDts);
            int size = copy.size();
            av_packet_rescale_ts(copy, timeBase, stream.time_base());
            Ffmpeg.check(av_write_frame(out, copy), "writing " + name);
            if (key && packets > 0) fragmentsWritten++;   // this keyframe cut the fragment before it and wrote it out
            packets++;
            bytes += size;
        } finally {
            av_packet_unref(copy);
        }
    }

    /** Closes the segment in progress (its file complete); the next keyframe starts a new one. */
    public void finish() throws IOException {
        if (out == null) return;
        String finished = name;
        // the pictures' span: from the first shown to the end of the last (with B-frames the first shown is not the
        // first decoded), which is where the next segment's first picture is shown
        long end = startMs + millis(lastPts + Math.max(lastDuration, 0) - firstPts);
        try {
            Ffmpeg.check(av_write_trailer(out), "closing " + finished);
            fragmentsWritten++;
        } finally {
            release();
        }
        long size = Files.size(layout.file(finished));
        listener.closed(new Segment(camera, finished, startMs, Math.max(end, startMs), size, packets));
    }

    private void begin(long start, long dts) throws IOException {
        name = layout.newSegmentName(camera, start);
        Path file = layout.prepare(name);
        AVFormatContext oc = new AVFormatContext(null);
        Ffmpeg.check(avformat_alloc_output_context2(oc, null, "mp4", (String) null), "mp4 muxer");
        out = oc;
        try {
            stream = avformat_new_stream(oc, null);
            if (stream == null) throw new IOException("cannot add a stream to " + name);
            Ffmpeg.check(avcodec_parameters_copy(stream.codecpar(), codec), "codec parameters");
            stream.codecpar().codec_tag(0);   // the camera's tag (RTP's) may not be MP4's: the muxer picks its own
            stream.time_base(timeBase);
            AVIOContext pb = new AVIOContext(null);
            // "file:" so that a directory holding ':' is never read as another protocol
            Ffmpeg.check(avio_open(pb, "file:" + file, AVIO_FLAG_WRITE), "creating " + file);
            oc.pb(pb);
            AVDictionary options = new AVDictionary(null);
            // delay_moov: a camera whose SPS/PPS come in the stream (no extradata) gets them from its first keyframe
            av_dict_set(options, "movflags", "frag_keyframe+empty_moov+default_base_moof+delay_moov", 0);
            av_dict_set(options, "frag_duration", "1000000", 0);
            av_dict_set(options, "flush_packets", "1", 0);   // each fragment to the OS as soon as it is cut
            try {
                Ffmpeg.check(avformat_write_header(oc, options), "starting " + name);
            } finally {
                av_dict_free(options);
            }
        } catch (IOException | RuntimeException e) {
            release();
            Files.deleteIfExists(file);
            throw e;
        }
        startMs = start;
        baseDts = dts;
        lastDts = dts;
        lastPts = dts;
        packets = 0;
        bytes = 0;
        listener.opened(new Segment(camera, name, startMs, -1, 0, 0));
    }

    private void release() {
        if (out == null) return;
        AVFormatContext oc = out;
        out = null;
        stream = null;
        if (oc.pb() != null && !oc.pb().isNull()) avio_closep(oc.pb());
        avformat_free_context(oc);
    }

    private long wallAt(long dts) { return anchorWallMs + millis(dts - anchorDts); }

    private long millis(long ticks) { return Math.round(ticks * 1000.0 * timeBase.num() / timeBase.den()); }

    private long ticks(long ms) { return Math.round(ms / 1000.0 * timeBase.den() / timeBase.num()); }

    /** Finishes the segment in progress. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        try {
            finish();
        } finally {
            closed = true;
            release();
            av_packet_free(copy);
            avcodec_parameters_free(codec);
        }
    }
}
