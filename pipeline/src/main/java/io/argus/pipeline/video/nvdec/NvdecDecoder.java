package io.argus.pipeline.video.nvdec;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_hw_config;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_NONE;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_NV12;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_ref;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_clone;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_get_pix_fmt_name;

import io.argus.detector.cuda.Nv12Surface;
import io.argus.detector.yuv.YuvColour;
import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.video.NvdecRefusal;
import io.argus.pipeline.video.Seekable;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.recording.PacketSink;
import io.argus.recording.Ffmpeg;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avformat;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVCodecHWConfig;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVHWFramesContext;
import org.bytedeco.javacpp.IntPointer;

/**
 * One camera decoded by NVDEC with its pictures left on the GPU: avformat reads the URL, FFmpeg's NVDEC hwaccel
 * decodes into a pool of CUDA surfaces on our device's primary context ({@link CudaHwDevice}), and {@link #next}
 * hands each picture over as a {@link HeldPicture}: an {@link Nv12Surface} (device pointers, pitches, the stream's
 * colour matrix and range) that stays valid, and out of FFmpeg's pool, until the holder closes it. FFmpeg's pool
 * grows when pictures are held, so a decoder never stalls for a held one; the camera bounds how many it holds.
 *
 * <p>Used by one thread. Opening fails with an {@link NvdecRefusal} naming the camera and the reason, so
 * {@code decoder: auto} can fall back to the CPU decoder and count why.
 */
public final class NvdecDecoder implements AutoCloseable {
    /**
     * A decoded picture held out of the decoder's pool: {@code surface} is readable by any stream of the device (its
     * copy out of NVDEC has completed) until {@link #close}, which gives it back. Close exactly once, from any thread.
     */
    public static final class HeldPicture implements AutoCloseable {
        private final AVFrame frame;
        private final Nv12Surface surface;
        private final long ptsMicros;
        private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

        HeldPicture(AVFrame frame, Nv12Surface surface, long ptsMicros) {
            this.frame = frame;
            this.surface = surface;
            this.ptsMicros = ptsMicros;
        }

        public Nv12Surface surface() { return surface; }

        /** Presentation time in microseconds, -1 when the stream has none. */
        public long ptsMicros() { return ptsMicros; }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) av_frame_free(frame);
        }
    }

    private final String camera;
    private final GpuStream stream;
    private final CUevent_st copied = new CUevent_st();   // blocking-sync: waiting on it sleeps, never spins
    private final CudaHwDevice device;
    private AVFormatContext format;
    private AVCodecContext codec;
    private final AVPacket packet = av_packet_alloc();
    private final AVFrame frame = av_frame_alloc();
    private final int streamIndex;
    private final double microsPerTick;
    private boolean draining;
    private PacketSink packets = PacketSink.NONE;
    /** Video packets read so far (written by the reading thread, read by the camera's watchdog). */
    private volatile long videoPackets;
    /**
     * NVDEC's session exists: FFmpeg creates it inside the send that carries the first slice, right after asking
     * {@link FormatChoice} for the format; until then sends take the gate's creating turn (see {@link SessionGate}).
     */
    private boolean sessionStarted;
    /** Waiting for a turn at the gate (creating or sending): busy on the device, not stalled. */
    private volatile boolean awaitingTurn;
    /** When the decoder entered avcodec_send_packet (decode, map and copy on NVDEC), 0 when it is not in it. */
    private volatile long sendingSince;

    /**
     * How long a decoder inside FFmpeg's NVDEC calls counts as busy on the device rather than stalled. NVDEC sessions
     * being created or destroyed (other cameras starting or reconnecting) hold every decoder of the GPU for up to
     * seconds (a 17 s call was seen with 150 streams): reconnecting such a camera only adds another session creation,
     * which was how one burst of stalls set off the next. A network stall shows in reading, not here; a device hung
     * longer than this is still abandoned.
     */
    private static final long DEVICE_PATIENCE_NANOS = 60_000_000_000L;

    /** This GPU's turns between creating NVDEC sessions and decoding (see {@link SessionGate}). */
    private final SessionGate gate;

    /**
     * Picks AV_PIX_FMT_CUDA when FFmpeg offers it. Without this callback FFmpeg's default would quietly decode in
     * software when NVDEC declines the stream (its hwaccel init failed: it then offers only software formats): we
     * want to know, and refuse, so the caller's fallback is explicit and counted.
     *
     * <p>One instance for every decoder: JavaCPP keeps at most 10 native thunks per callback class alive at once, and
     * an eleventh decoder's callback would be a null function pointer (FFmpeg crashed calling it at 16 streams). What
     * each decoder was offered is kept by its codec context's address.
     */
    private static final class FormatChoice extends AVCodecContext.Get_format_AVCodecContext_IntPointer {
        static final FormatChoice SHARED = new FormatChoice();
        /** The software formats offered to a decoder NVDEC declined, by its AVCodecContext's address. */
        final java.util.concurrent.ConcurrentHashMap<Long, String> declined = new java.util.concurrent.ConcurrentHashMap<>();
        /** Decoders given NVDEC since their last send, by codec context address: their session was just created. */
        final java.util.Set<Long> chosen = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public int call(AVCodecContext c, IntPointer fmts) {
            StringBuilder names = new StringBuilder();
            for (int i = 0; ; i++) {
                int f = fmts.get(i);
                if (f == AV_PIX_FMT_NONE) break;
                if (f == AV_PIX_FMT_CUDA) {
                    chosen.add(c.address());
                    return f;
                }
                names.append(names.isEmpty() ? "" : ", ").append(av_get_pix_fmt_name(f).getString());
            }
            declined.put(c.address(), names.toString());
            return AV_PIX_FMT_NONE;
        }
    }

    private NvdecDecoder(String camera, DeviceContext ctx, String url, AVDictionary options) throws NvdecRefusal {
        this.camera = camera;
        this.gate = SessionGate.of(ctx.device().index());
        this.stream = new GpuStream(GpuStream.Priority.HIGHEST);
        Status.cuda(cudart.cudaEventCreateWithFlags(copied, cudart.cudaEventBlockingSync | cudart.cudaEventDisableTiming),
                "cudaEventCreateWithFlags");
        CudaHwDevice dev = null;
        try {
            dev = CudaHwDevice.open(ctx, stream);
            format = new AVFormatContext(null);
            int r = avformat_open_input(format, url, null, options);
            if (r < 0) throw new NvdecRefusal(camera, NvdecRefusal.Reason.OPEN_FAILED, "cannot open: " + Ffmpeg.error(r));
            r = avformat_find_stream_info(format, (AVDictionary) null);
            if (r < 0) throw new NvdecRefusal(camera, NvdecRefusal.Reason.OPEN_FAILED, "no stream info: " + Ffmpeg.error(r));
            AVCodec decoder = new AVCodec(null);
            streamIndex = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, decoder, 0);
            if (streamIndex < 0) throw new NvdecRefusal(camera, NvdecRefusal.Reason.OPEN_FAILED, "no video stream");
            if (decoder.isNull()) throw new NvdecRefusal(camera, NvdecRefusal.Reason.CODEC_UNSUPPORTED, "no decoder");
            AVStream video = format.streams(streamIndex);
            String codecName = avcodec_get_name(video.codecpar().codec_id()).getString();
            if (!hasCudaConfig(decoder)) {
                throw new NvdecRefusal(camera, NvdecRefusal.Reason.CODEC_UNSUPPORTED,
                        "FFmpeg has no NVDEC decoding for " + codecName);
            }
            codec = avcodec_alloc_context3(decoder);
            avcodec_parameters_to_context(codec, video.codecpar());
            codec.hw_device_ctx(av_buffer_ref(dev.ref()));
            codec.get_format(FormatChoice.SHARED);
            codec.thread_count(1);   // NVDEC does the work; FFmpeg's threads would only parse
            r = avcodec_open2(codec, decoder, (AVDictionary) null);
            if (r < 0) throw new NvdecRefusal(camera, NvdecRefusal.Reason.STREAM_REFUSED, "avcodec_open2: " + Ffmpeg.error(r));
            microsPerTick = 1e6 * video.time_base().num() / video.time_base().den();
            device = dev;
        } catch (NvdecRefusal | RuntimeException e) {
            release();
            if (dev != null) dev.close();
            cudart.cudaEventDestroy(copied);
            stream.close();
            throw e;
        }
    }

    /**
     * Opens {@code url} for NVDEC decoding on CUDA device {@code deviceIndex}; {@code options} are avformat's
     * (timeouts, RTSP transport), may be null.
     */
    public static NvdecDecoder open(String camera, int deviceIndex, String url, AVDictionary options) throws NvdecRefusal {
        return open(camera, deviceIndex, url, options, PacketSink.NONE);
    }

    /** As above, each video packet handed to {@code packets} (the camera's recorder) before NVDEC decodes it. */
    public static NvdecDecoder open(String camera, int deviceIndex, String url, AVDictionary options, PacketSink packets)
            throws NvdecRefusal {
        if (!CudaRuntime.available()) {
            throw new NvdecRefusal(camera, NvdecRefusal.Reason.NO_CUDA, CudaRuntime.problem());
        }
        NvdecDecoder d = new NvdecDecoder(camera, DeviceContext.of(deviceIndex), url, options);
        d.packets = packets;
        AVStream video = d.format.streams(d.streamIndex);
        packets.streamStarted(video.codecpar(), video.time_base());
        return d;
    }

    private static boolean hasCudaConfig(AVCodec decoder) {
        for (int i = 0; ; i++) {
            AVCodecHWConfig c = avcodec_get_hw_config(decoder, i);
            if (c == null) return false;
            if (c.device_type() == AV_HWDEVICE_TYPE_CUDA && (c.methods() & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) != 0) {
                return true;
            }
        }
    }

    /** The stream FFmpeg copies each picture out of NVDEC on (the decoder's own). */
    public GpuStream stream() { return stream; }

    /** The stream's coded size (the pictures' size). */
    public int width() { return codec.width(); }

    public int height() { return codec.height(); }

    /**
     * Decodes the next picture and holds it for the caller; null at the end of the stream. Throws an
     * {@link NvdecRefusal} when NVDEC declines the stream at its first picture (FFmpeg negotiates the hwaccel
     * there, not at open).
     */
    public HeldPicture next() throws NvdecRefusal {
        while (true) {
            long[] t = DecodeSteps.start();
            int r = avcodec_receive_frame(codec, frame);
            DecodeSteps.end(DecodeSteps.Step.RECEIVE, t);
            if (r >= 0) {
                sessionStarted = true;
                try {
                    return hold();
                } finally {
                    av_frame_unref(frame);
                }
            }
            String offered = FormatChoice.SHARED.declined.get(codec.address());
            if (offered != null) {
                throw new NvdecRefusal(camera, NvdecRefusal.Reason.STREAM_REFUSED, "NVDEC did not take the stream "
                        + "(libnvcuvid.so.1 missing, or this GPU cannot decode its profile, bit depth or size; "
                        + "FFmpeg offered only " + offered + ")");
            }
            if (r == AVERROR_EOF || draining) return null;
            t = DecodeSteps.start();
            r = av_read_frame(format, packet);
            DecodeSteps.end(DecodeSteps.Step.READ, t);
            if (r < 0) {
                // A low-delay stream (no reordering: every picture came out with its packet) has nothing left inside
                // the decoder, so it is not drained: a looping file then rewinds without a flush (see rewind).
                if (codec.has_b_frames() == 0) return null;
                draining = true;
                avcodec_send_packet(codec, null);   // flush the pictures still inside the decoder
                continue;
            }
            try {
                if (packet.stream_index() == streamIndex) {
                    videoPackets++;
                    packets.packet(packet, System.currentTimeMillis());
                    boolean creating = !sessionStarted;
                    awaitTurn(creating);
                    sendingSince = System.nanoTime();
                    try {
                        t = DecodeSteps.start();
                        avcodec_send_packet(codec, packet);
                        DecodeSteps.end(creating ? DecodeSteps.Step.FIRST_SENDS : DecodeSteps.Step.SEND, t);
                    } finally {
                        sendingSince = 0;
                        if (creating) {
                            gate.endCreating();
                            if (FormatChoice.SHARED.chosen.remove(codec.address())) sessionStarted = true;
                        } else {
                            gate.endSending();
                        }
                    }
                }
            } finally {
                av_packet_unref(packet);
            }
        }
    }

    /** Video packets read since open: the camera tells from it whether a stream without pictures sends anything. */
    public long videoPackets() { return videoPackets; }

    /**
     * True while this decoder waits for its turn to create its NVDEC session, or is inside NVDEC's decode (for up
     * to a minute): busy on the device, not stalled (see the camera's watchdog).
     */
    public boolean waitingForDevice() {
        long since = sendingSince;
        return awaitingTurn || (since != 0 && System.nanoTime() - since < DEVICE_PATIENCE_NANOS);
    }

    private void awaitTurn(boolean creating) {
        awaitingTurn = true;
        try {
            if (creating) gate.beginCreating();
            else gate.beginSending();
        } finally {
            awaitingTurn = false;
        }
    }

    /**
     * Back to the start of a file (the decode benchmark loops its video): seeks to the first keyframe and drops what
     * the decoder holds. False when the input cannot seek (a live stream).
     */
    public boolean rewind() {
        // a pipe cannot go back (FFmpeg's seek "succeeds" inside its read buffer and replays stale bytes)
        if (!Seekable.of(format)) return false;
        if (avformat.av_seek_frame(format, -1, 0, avformat.AVSEEK_FLAG_BACKWARD) < 0) return false;
        if (draining) {
            // A drained decoder must be flushed, and FFmpeg's H.264 flush re-initialises the hwaccel at the next
            // picture: a new NVDEC session, so it takes a turn like a first picture. That creation under load took
            // 1-14 s per loop with 150 streams; an undrained low-delay decoder needs no flush: the file's first
            // picture is a keyframe, which starts decoding afresh on the same session.
            avcodec.avcodec_flush_buffers(codec);
            sessionStarted = false;
        }
        draining = false;
        return true;
    }

    private HeldPicture hold() throws NvdecRefusal {
        if (frame.format() != AV_PIX_FMT_CUDA) {
            throw new NvdecRefusal(camera, NvdecRefusal.Reason.STREAM_REFUSED,
                    "decoded a " + av_get_pix_fmt_name(frame.format()).getString() + " picture, not a CUDA surface");
        }
        int sw = new AVHWFramesContext(frame.hw_frames_ctx().data()).sw_format();
        if (sw != AV_PIX_FMT_NV12) {
            throw new NvdecRefusal(camera, NvdecRefusal.Reason.SURFACE_FORMAT, "surfaces are "
                    + av_get_pix_fmt_name(sw).getString() + "; only 8-bit NV12 is converted");
        }
        YuvColour colour = new YuvColour(
                frame.colorspace() == AVCOL_SPC_BT709 ? YuvColour.Matrix.BT709 : YuvColour.Matrix.BT601,
                frame.color_range() == AVCOL_RANGE_JPEG ? YuvColour.Range.FULL : YuvColour.Range.LIMITED);
        long pts = frame.best_effort_timestamp();
        AVFrame held = av_frame_clone(frame);   // a new reference to the same surface: it stays out of the pool
        if (held == null) throw new OutOfMemoryError("av_frame_clone");
        Nv12Surface surface = new Nv12Surface(held.data(0).address(), held.data(1).address(), held.linesize(0),
                held.linesize(1), held.width(), held.height(), colour);
        // FFmpeg copied the picture out of NVDEC's own surface on our stream: once that copy is done, any stream of
        // the device may read it. The wait is microseconds, but a spinning wait (cudaStreamSynchronize on a context
        // that spins) in each of 150 camera threads took 10 of 16 cores: a blocking-sync event sleeps instead.
        long[] t = DecodeSteps.start();
        Status.cuda(cudart.cudaEventRecord(copied, stream.handle()), "cudaEventRecord");
        Status.cuda(cudart.cudaEventSynchronize(copied), "cudaEventSynchronize (NVDEC copy)");
        DecodeSteps.end(DecodeSteps.Step.COPY_WAIT, t);
        DecodeSteps.picture();
        return new HeldPicture(held, surface, pts == Long.MIN_VALUE ? -1 : Math.round(pts * microsPerTick));
    }

    private void release() {
        if (codec != null) FormatChoice.SHARED.declined.remove(codec.address());
        if (codec != null) FormatChoice.SHARED.chosen.remove(codec.address());
        if (codec != null) avcodec_free_context(codec);
        codec = null;
        if (format != null && !format.isNull()) avformat_close_input(format);
        format = null;
    }

    @Override
    public void close() {
        packets.streamEnded();
        av_frame_free(frame);
        av_packet_free(packet);
        release();
        device.close();
        cudart.cudaEventDestroy(copied);
        stream.close();
    }
}
