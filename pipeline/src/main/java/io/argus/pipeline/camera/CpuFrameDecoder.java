package io.argus.pipeline.camera;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_flush_buffers;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avformat.AVSEEK_FLAG_BACKWARD;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_find_input_format;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_seek_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_BGR24;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCachedContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;

import io.argus.detector.BgrImage;
import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.video.Seekable;
import io.argus.recording.PacketSink;
import java.nio.ByteBuffer;
import java.util.Map;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVInputFormat;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * One connection read and decoded by FFmpeg's software decoders: avformat reads the camera, each video packet goes
 * first to the {@link PacketSink} (the recorder: the compressed stream as it came) and then to the decoder, and each
 * picture is converted to BGR straight into a buffer of the camera's {@link FramePool} when the pipeline takes it (a
 * picture superseded before it is taken is never converted). One connection serves detection and recording.
 *
 * <p>Errors read as JavaCV's did ("avformat_open_input() error -111: Could not open input ..."), which
 * {@link CameraReader#readable} turns into words. Used by the camera's reader thread only; the watchdog's question
 * ({@link #packetsSincePicture}) is answered from another.
 */
final class CpuFrameDecoder implements FrameDecoder {
    /** How long to wait before reading again when a device has nothing yet (a USB camera between frames). */
    private static final long AGAIN_NANOS = 5_000_000L;

    private final CameraUrl source;
    private final CameraSettings settings;
    private final FramePool pool;
    private final PacketSink sink;
    private final AVPacket packet = av_packet_alloc();
    private final AVFrame picture = av_frame_alloc();
    private AVFormatContext format;
    private AVCodecContext codec;
    private SwsContext toBgr;
    private int streamIndex = -1;
    private double microsPerTick;
    private boolean draining;
    private boolean held;          // picture holds a decoded picture not yet replaced
    private boolean streamOpen;    // the sink was told of this connection's stream
    /** Guards {@link #video} between the watchdog's question and {@link #close} (which frees what it points into). */
    private final Object videoLock = new Object();
    private AVStream video;

    CpuFrameDecoder(CameraUrl source, CameraSettings settings, FramePool pool) {
        this(source, settings, pool, PacketSink.NONE);
    }

    CpuFrameDecoder(CameraUrl source, CameraSettings settings, FramePool pool, PacketSink sink) {
        this.source = source;
        this.settings = settings;
        this.pool = pool;
        this.sink = sink;
    }

    /**
     * The options avformat opens the input with: the camera's (timeouts, RTSP transport, {@code max_delay}, which
     * avformat applies as given; JavaCV used to overwrite it after opening).
     */
    Map<String, String> inputOptions() { return source.inputOptions(settings.connectTimeoutMs()); }

    @Override
    public String name() { return "cpu"; }

    @Override
    public void open() throws Exception {
        AVInputFormat inputFormat = null;
        if (source.format() != null) {
            inputFormat = av_find_input_format(source.format());
            if (inputFormat == null) throw new Exception("av_find_input_format() error: Input format \"" + source.format() + "\" not found.");
        }
        AVDictionary options = new AVDictionary(null);
        inputOptions().forEach((k, v) -> av_dict_set(options, k, v, 0));
        AVFormatContext f = new AVFormatContext(null);
        int r;
        try {
            r = avformat_open_input(f, source.input(), inputFormat, options);
        } finally {
            av_dict_free(options);
        }
        if (r < 0) throw new Exception("avformat_open_input() error " + r + ": Could not open input \"" + source.input() + "\".");
        format = f;
        r = avformat_find_stream_info(format, (PointerPointer<?>) null);
        if (r < 0) throw new Exception("avformat_find_stream_info() error " + r + ": Could not find stream information.");
        AVCodec decoder = new AVCodec(null);
        streamIndex = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, decoder, 0);
        if (streamIndex < 0 || decoder.isNull()) {
            throw new Exception("av_find_best_stream() error " + streamIndex + ": Could not find a video stream with a decoder.");
        }
        AVStream st = format.streams(streamIndex);
        codec = avcodec_alloc_context3(decoder);
        avcodec_parameters_to_context(codec, st.codecpar());
        codec.thread_count(settings.decoderThreads());   // 0: as many as FFmpeg sees fit
        r = avcodec_open2(codec, decoder, (AVDictionary) null);
        if (r < 0) throw new Exception("avcodec_open2() error " + r + ": Could not open video codec.");
        microsPerTick = 1e6 * st.time_base().num() / st.time_base().den();
        synchronized (videoLock) {
            video = st;
        }
        pictureTaken();
        sink.streamStarted(st.codecpar(), st.time_base());
        streamOpen = true;
    }

    /**
     * FFmpeg sets its stream's NEW_PACKETS event flag at every packet it reads; cleared here (on the reader thread, as
     * FFmpeg writes it) at open and at each picture, the flag then tells whether packets came since the last picture.
     */
    private void pictureTaken() {
        AVStream st = video;
        if (st != null) st.event_flags(st.event_flags() & ~AVStream.AVSTREAM_EVENT_FLAG_NEW_PACKETS);
    }

    @Override
    public boolean packetsSincePicture() {
        synchronized (videoLock) {
            return video != null && (video.event_flags() & AVStream.AVSTREAM_EVENT_FLAG_NEW_PACKETS) != 0;
        }
    }

    @Override
    public int width() { return codec.width(); }

    @Override
    public int height() { return codec.height(); }

    @Override
    public boolean decode() throws Exception {
        if (held) {
            av_frame_unref(picture);
            held = false;
        }
        while (true) {
            int r = avcodec_receive_frame(codec, picture);
            if (r >= 0) {
                held = true;
                pictureTaken();
                return true;
            }
            if (r == AVERROR_EOF || draining) return false;
            r = av_read_frame(format, packet);
            if (r == -11) {   // EAGAIN: a device with nothing to read yet
                java.util.concurrent.locks.LockSupport.parkNanos(AGAIN_NANOS);
                continue;
            }
            if (r < 0) {
                draining = true;
                avcodec_send_packet(codec, null);   // the pictures still inside the decoder
                continue;
            }
            try {
                if (packet.stream_index() != streamIndex) continue;
                sink.packet(packet, System.currentTimeMillis());
                // a packet the decoder refuses (corrupt, or before the first keyframe) is skipped, as FFmpeg's CLI does
                avcodec_send_packet(codec, packet);
            } finally {
                av_packet_unref(packet);
            }
        }
    }

    @Override
    public long ptsMicros() {
        long pts = picture.best_effort_timestamp();
        return pts == AV_NOPTS_VALUE ? 0 : Math.round(pts * microsPerTick);
    }

    @Override
    public VideoFrame take(FrameStamp s) {
        int w = picture.width();
        int h = picture.height();
        int stride = w * 3;
        int bytes = stride * h;
        ByteBuffer buf = pool.acquire(bytes);
        if (buf == null) return null;
        toBgr = sws_getCachedContext(toBgr, w, h, picture.format(), w, h, AV_PIX_FMT_BGR24, SWS_BILINEAR, null, null,
                (DoublePointer) null);
        if (toBgr == null) {
            pool.release(buf);
            throw new IllegalStateException("cannot convert " + w + "x" + h + " pictures of pixel format " + picture.format() + " to BGR");
        }
        // four planes' pointers and strides, as swscale reads them, the unused ones null and 0
        try (BytePointer out = new BytePointer(buf);
             PointerPointer<?> dst = new PointerPointer<>(4).put(0, out);
             IntPointer dstStride = new IntPointer(new int[] {stride, 0, 0, 0})) {
            sws_scale(toBgr, picture.data(), picture.linesize(), 0, h, dst, dstStride);
        }
        return new VideoFrame(s.cameraId(), s.number(), s.ptsMs(), s.captureTimeMs(), s.captureNanos(), s.decodeMs(),
                new BgrImage(w, h, stride, buf.slice(0, bytes)), pool, buf, s.fate());
    }

    @Override
    public boolean rewind() {
        // A pipe cannot go back: FFmpeg's seek "succeeds" inside its read buffer and the camera would replay stale
        // bytes forever instead of reopening (an unplugged writer looked like a stream that never ends)
        if (format == null || !Seekable.of(format)) return false;
        if (av_seek_frame(format, -1, 0, AVSEEK_FLAG_BACKWARD) < 0) return false;
        avcodec_flush_buffers(codec);
        draining = false;
        return true;
    }

    @Override
    public void close() {
        synchronized (videoLock) {
            video = null;
        }
        if (streamOpen) {
            streamOpen = false;
            sink.streamEnded();
        }
        if (toBgr != null) sws_freeContext(toBgr);
        toBgr = null;
        av_frame_free(picture);
        av_packet_free(packet);
        if (codec != null) avcodec_free_context(codec);
        codec = null;
        if (format != null) avformat_close_input(format);
        format = null;
    }
}
