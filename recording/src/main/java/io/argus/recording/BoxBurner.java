package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_FLAG_GLOBAL_HEADER;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_rescale_ts;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_encoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_from_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avformat.AVFMT_GLOBALHEADER;
import static org.bytedeco.ffmpeg.global.avformat.AVIO_FLAG_WRITE;
import static org.bytedeco.ffmpeg.global.avformat.av_interleaved_write_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_write_trailer;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_output_context2;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_new_stream;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_write_header;
import static org.bytedeco.ffmpeg.global.avformat.avio_closep;
import static org.bytedeco.ffmpeg.global.avformat.avio_open;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_MPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_get_buffer;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_make_writable;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.SWS_CS_DEFAULT;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCachedContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCoefficients;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;
import static org.bytedeco.ffmpeg.global.swscale.sws_setColorspaceDetails;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * A clip with the detector's boxes drawn into its pictures: decoded, drawn on, encoded again as H.264 in an MP4 whose
 * index comes first ({@code faststart}). Each picture gets the boxes of the detection-log frame nearest its wall-clock
 * time within {@link #NEAREST_MS} (as the dashboard's playback draws them: a log frame's time is when it was decoded, a
 * packet's when it arrived), scaled when the log's frame size is not the picture's; a picture with no log frame that
 * near is left as it was. A box is an outline in its class's colour (the dashboard's colour for the class) with a label
 * above it, {@code #track class confidence}, in a 5x7 pixel font built in (no font library).
 *
 * <p>The pictures keep the source's timestamps and count. One thread does the whole work (decoder and encoder on one
 * thread each time: an export must not take the cores detection needs). The file is written beside its destination and
 * moved into place whole; an interrupted thread stops at the next packet, removes what it had written and throws
 * {@link InterruptedException}.
 */
public final class BoxBurner {
    /** The H.264 encoder of the FFmpeg build the project ships (bytedeco's has OpenH264 and no x264). */
    public static final String ENCODER = "libopenh264";
    /** How far from a picture's time a log frame may be for its boxes to be drawn on it. */
    public static final long NEAREST_MS = 250;
    /** The log is read a minute at a time (at most so many frames of it): an hour's log need not be held whole. */
    public static final long WINDOW_MS = 60_000;
    public static final int WINDOW_LIMIT = 100_000;

    /** Where the work stands: pictures done of those expected, from 0 to 1, never less than before, 1 at the end. */
    @FunctionalInterface
    public interface Progress {
        void at(double fraction);
    }

    /** The detection log of the clip's camera: its frames in [fromMs, toMs), oldest first. */
    @FunctionalInterface
    public interface Frames {
        List<DetectionLog.Frame> between(long fromMs, long toMs);
    }

    /** What was written: pictures, how many had boxes drawn, the encoder, the file's size and the time it took. */
    public record Burned(long pictures, long withBoxes, String encoder, long bytes, long millis) {}

    private BoxBurner() {}

    /** As {@link #burn(Path, long, Frames, Path, Progress)} with the log's frames given as a list, oldest first. */
    public static Burned burn(Path clip, long clipStartMs, List<DetectionLog.Frame> frames, Path out, Progress progress)
            throws IOException, InterruptedException {
        Frames log = (from, to) -> frames.stream().filter(f -> f.timeMs() >= from && f.timeMs() < to).toList();
        return burn(clip, clipStartMs, log, out, progress);
    }

    /**
     * Writes {@code clip} with boxes to {@code out} (replacing it; {@code out} may be {@code clip} itself).
     * {@code clipStartMs} is the wall-clock time of the clip's first packet (its decoding time:
     * {@link ClipWriter.Written#fromMs}).
     *
     * @throws IOException the clip does not read or decode (the message names it), or writing failed; nothing is left at
     *     {@code out} then, nor beside it
     * @throws InterruptedException the thread was interrupted; nothing is left either
     */
    public static Burned burn(Path clip, long clipStartMs, Frames log, Path out, Progress progress)
            throws IOException, InterruptedException {
        long started = System.nanoTime();
        Path partial = out.resolveSibling(out.getFileName() + ".partial");
        Files.deleteIfExists(partial);
        Work w = new Work(clip, clipStartMs, log, partial, progress);
        try {
            w.run();
        } catch (IOException | InterruptedException | RuntimeException e) {
            w.release();
            Files.deleteIfExists(partial);
            throw e;
        }
        w.release();
        long bytes = Files.size(partial);
        Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        progress.at(1.0);
        return new Burned(w.pictures, w.withBoxes, ENCODER, bytes, (System.nanoTime() - started) / 1_000_000);
    }

    /** The log frame nearest {@code ms} within {@link #NEAREST_MS} in {@code frames} (oldest first), or null. */
    static DetectionLog.Frame nearest(List<DetectionLog.Frame> frames, long ms) {
        int lo = 0;
        int hi = frames.size();
        while (lo < hi) {   // the first frame at or after ms
            int mid = (lo + hi) >>> 1;
            if (frames.get(mid).timeMs() < ms) lo = mid + 1;
            else hi = mid;
        }
        DetectionLog.Frame best = null;
        for (int i = lo - 1; i <= lo; i++) {
            if (i < 0 || i >= frames.size()) continue;
            DetectionLog.Frame f = frames.get(i);
            long d = Math.abs(f.timeMs() - ms);
            if (d <= NEAREST_MS && (best == null || d < Math.abs(best.timeMs() - ms))) best = f;
        }
        return best;
    }

    /** The decoding, drawing and encoding of one clip, and what it holds to release. */
    private static final class Work {
        final Path clip;
        final long clipStartMs;
        final Frames log;
        final Path file;
        final Progress progress;
        AVFormatContext ic;
        AVCodecContext decoder;
        AVCodecContext encoder;
        AVFormatContext oc;
        AVStream outStream;
        SwsContext sws;
        long swsConfigured;
        AVPacket packet;
        AVPacket encoded;
        AVFrame decoded;
        AVFrame picture;
        int video = -1;
        AVRational timeBase;
        long anchorDts = AV_NOPTS_VALUE;
        long expected;
        long pictures;
        long withBoxes;
        long lastPts = AV_NOPTS_VALUE;
        /** One picture's duration at the stream's frame rate, in its time base. */
        long frameDuration = 1;
        double reported;
        List<DetectionLog.Frame> window = List.of();
        long windowFrom = Long.MAX_VALUE;
        long windowTo = Long.MIN_VALUE;

        Work(Path clip, long clipStartMs, Frames log, Path file, Progress progress) {
            this.clip = clip;
            this.clipStartMs = clipStartMs;
            this.log = log;
            this.file = file;
            this.progress = progress;
        }

        void run() throws IOException, InterruptedException {
            openInput();
            packet = av_packet_alloc();
            encoded = av_packet_alloc();
            decoded = av_frame_alloc();
            while (true) {
                if (Thread.interrupted()) throw new InterruptedException("burning boxes into " + clip + ": interrupted");
                int r = av_read_frame(ic, packet);
                if (r == AVERROR_EOF) break;
                if (r < 0) throw new IOException("the clip " + clip + " does not read to its end: " + Ffmpeg.error(r));
                try {
                    if (packet.stream_index() != video) continue;
                    if (anchorDts == AV_NOPTS_VALUE) anchorDts = packet.dts() != AV_NOPTS_VALUE ? packet.dts() : packet.pts();
                    int sent = avcodec_send_packet(decoder, packet);
                    // a damaged packet costs its picture, as in any player; a clip of nothing but damage fails below
                    if (sent < 0 && sent != -11) continue;
                } finally {
                    av_packet_unref(packet);
                }
                receivePictures();
            }
            avcodec_send_packet(decoder, null);
            receivePictures();
            if (pictures == 0) throw new IOException("the clip " + clip + " holds no picture that decodes");
            Ffmpeg.check(avcodec_send_frame(encoder, null), "finishing the encoding of " + file);
            writePackets();
            Ffmpeg.check(av_write_trailer(oc), "closing " + file);
        }

        void openInput() throws IOException {
            ic = new AVFormatContext(null);
            int opened = avformat_open_input(ic, "file:" + clip.toAbsolutePath(), null, null);
            if (opened < 0) {
                ic = null;
                throw new IOException("cannot read the clip " + clip + ": " + Ffmpeg.error(opened));
            }
            int info = avformat_find_stream_info(ic, (PointerPointer<?>) null);
            if (info < 0) throw new IOException("the clip " + clip + " does not read as video: " + Ffmpeg.error(info));
            for (int i = 0; i < ic.nb_streams(); i++) {
                if (ic.streams(i).codecpar().codec_type() == AVMEDIA_TYPE_VIDEO) {
                    video = i;
                    break;
                }
            }
            if (video < 0) throw new IOException("the clip " + clip + " holds no video stream");
            AVStream st = ic.streams(video);
            timeBase = st.time_base();
            AVCodec codec = avcodec_find_decoder(st.codecpar().codec_id());
            if (codec == null || codec.isNull()) {
                throw new IOException("the clip " + clip + " is in a codec this build cannot decode (" + st.codecpar().codec_id() + ")");
            }
            decoder = avcodec_alloc_context3(codec);
            Ffmpeg.check(avcodec_parameters_to_context(decoder, st.codecpar()), "the decoder of " + clip);
            decoder.thread_count(1);
            decoder.pkt_timebase(timeBase);
            Ffmpeg.check(avcodec_open2(decoder, codec, (AVDictionary) null), "opening the decoder of " + clip);
            expected = st.nb_frames();
            if (expected <= 0 && st.duration() > 0 && st.avg_frame_rate().num() > 0) {
                expected = Math.round(st.duration() * timeBase.num() / (double) timeBase.den()
                        * st.avg_frame_rate().num() / st.avg_frame_rate().den());
            }
        }

        /** The encoder and the output file, sized by the first picture. */
        void openOutput(AVFrame first) throws IOException {
            AVCodec codec = avcodec_find_encoder_by_name(ENCODER);
            if (codec == null || codec.isNull()) throw new IOException("this FFmpeg build has no " + ENCODER + " encoder");
            AVStream st = ic.streams(video);
            AVRational rate = st.avg_frame_rate().num() > 0 ? st.avg_frame_rate() : st.r_frame_rate();
            if (rate.num() <= 0 || rate.den() <= 0) rate = new AVRational().num(25).den(1);
            double fps = rate.num() / (double) rate.den();
            frameDuration = Math.max(1, Math.round(timeBase.den() / (fps * timeBase.num())));
            int width = first.width() & ~1;
            int height = first.height() & ~1;
            encoder = avcodec_alloc_context3(codec);
            encoder.width(width).height(height).pix_fmt(AV_PIX_FMT_YUV420P).time_base(timeBase).framerate(rate);
            encoder.color_range(AVCOL_RANGE_MPEG).colorspace(decoder.colorspace()).color_primaries(decoder.color_primaries())
                    .color_trc(decoder.color_trc());
            // the camera's own rate when it is known, and at least ~0.1 bit per pixel: the boxes' edges and the
            // scene must survive a second generation of compression
            long floor = Math.round(width * (double) height * fps * 0.1);
            encoder.bit_rate(Math.max(st.codecpar().bit_rate(), floor));
            encoder.gop_size((int) Math.max(1, Math.round(fps * 2)));   // a keyframe every 2 s: seeking in a player
            encoder.thread_count(1);
            oc = new AVFormatContext(null);
            // named: faststart's second pass reopens the file by the context's name to move the index first
            String url = "file:" + file.toAbsolutePath();
            Ffmpeg.check(avformat_alloc_output_context2(oc, null, "mp4", url), "mp4 muxer");
            if ((oc.oformat().flags() & AVFMT_GLOBALHEADER) != 0) encoder.flags(encoder.flags() | AV_CODEC_FLAG_GLOBAL_HEADER);
            Ffmpeg.check(avcodec_open2(encoder, codec, (AVDictionary) null), "opening the " + ENCODER + " encoder");
            outStream = avformat_new_stream(oc, null);
            if (outStream == null) throw new IOException("cannot add a stream to " + file);
            Ffmpeg.check(avcodec_parameters_from_context(outStream.codecpar(), encoder), "codec parameters");
            outStream.time_base(timeBase);
            AVIOContext pb = new AVIOContext(null);
            Ffmpeg.check(avio_open(pb, url, AVIO_FLAG_WRITE), "creating " + file);
            oc.pb(pb);
            AVDictionary options = new AVDictionary(null);
            av_dict_set(options, "movflags", "+faststart", 0);
            try {
                Ffmpeg.check(avformat_write_header(oc, options), "starting " + file);
            } finally {
                av_dict_free(options);
            }
            picture = av_frame_alloc();
            picture.format(AV_PIX_FMT_YUV420P).width(width).height(height);
            Ffmpeg.check(av_frame_get_buffer(picture, 0), "a picture of " + width + "x" + height);
        }

        void receivePictures() throws IOException {
            while (true) {
                int r = avcodec_receive_frame(decoder, decoded);
                if (r == -11 || r == AVERROR_EOF) return;   // -11: EAGAIN, the decoder wants more packets
                if (r < 0) return;   // a picture that did not decode: as a damaged packet
                try {
                    if (encoder == null) openOutput(decoded);
                    Ffmpeg.check(av_frame_make_writable(picture), "a picture to draw on");
                    toPicture(decoded);
                    long pts = decoded.best_effort_timestamp();
                    if (pts == AV_NOPTS_VALUE) pts = decoded.pts();
                    if (pts == AV_NOPTS_VALUE) pts = lastPts == AV_NOPTS_VALUE ? 0 : lastPts + Math.max(1, decoded.duration());
                    if (lastPts != AV_NOPTS_VALUE && pts <= lastPts) pts = lastPts + 1;   // the muxer needs them rising
                    lastPts = pts;
                    picture.pts(pts);
                    picture.duration(decoded.duration());
                    long ms = clipStartMs + Math.round((pts - anchorDts) * 1000.0 * timeBase.num() / timeBase.den());
                    DetectionLog.Frame boxes = logFrameNear(ms);
                    if (boxes != null && draw(boxes) > 0) withBoxes++;
                    Ffmpeg.check(avcodec_send_frame(encoder, picture), "encoding a picture of " + clip);
                    writePackets();
                } finally {
                    av_frame_unref(decoded);
                }
                pictures++;
                if (expected > 0) {
                    double at = Math.min(0.999, pictures / (double) expected);
                    if (at > reported) {
                        reported = at;
                        progress.at(at);
                    }
                }
            }
        }

        /** The decoded picture into {@link #picture}: 4:2:0 in studio range, the encoder's size. */
        void toPicture(AVFrame f) throws IOException {
            sws = sws_getCachedContext(sws, f.width(), f.height(), f.format(), picture.width(), picture.height(),
                    AV_PIX_FMT_YUV420P, SWS_BILINEAR, null, null, (DoublePointer) null);
            if (sws == null) throw new IOException("the pictures of " + clip + " (format " + f.format() + ") cannot be converted");
            if (f.color_range() == AVCOL_RANGE_JPEG && sws.address() != swsConfigured) {
                // full-range pictures labelled as plain 4:2:0: swscale converts the range only when told
                swsConfigured = sws.address();
                sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_DEFAULT), 1, sws_getCoefficients(SWS_CS_DEFAULT), 0,
                        0, 1 << 16, 1 << 16);
            }
            sws_scale(sws, f.data(), f.linesize(), 0, f.height(), picture.data(), picture.linesize());
        }

        void writePackets() throws IOException {
            while (true) {
                int r = avcodec_receive_packet(encoder, encoded);
                if (r == -11 || r == AVERROR_EOF) return;
                Ffmpeg.check(r, "encoding " + clip);
                try {
                    encoded.stream_index(0);
                    // the muxer's edit list ends with the last picture's duration: without one that picture is cut
                    if (encoded.duration() <= 0) encoded.duration(frameDuration);
                    av_packet_rescale_ts(encoded, encoder.time_base(), outStream.time_base());
                    Ffmpeg.check(av_interleaved_write_frame(oc, encoded), "writing " + file);
                } finally {
                    av_packet_unref(encoded);
                }
            }
        }

        DetectionLog.Frame logFrameNear(long ms) {
            if (ms - NEAREST_MS < windowFrom || ms + NEAREST_MS >= windowTo) {
                windowFrom = ms - NEAREST_MS;
                windowTo = windowFrom + WINDOW_MS;
                window = log.between(windowFrom, windowTo);
            }
            return nearest(window, ms);
        }

        /** Draws the frame's boxes on {@link #picture}; returns how many were drawn. */
        int draw(DetectionLog.Frame frame) {
            List<Object> boxes;
            try {
                boxes = Json.parseList(frame.boxes());
            } catch (IllegalArgumentException e) {
                return 0;   // a row the log mangled: this picture goes without boxes rather than the export failing
            }
            Canvas c = new Canvas(picture, decoder.colorspace() == AVCOL_SPC_BT709);
            double sx = frame.width() > 0 ? picture.width() / (double) frame.width() : 1;
            double sy = frame.height() > 0 ? picture.height() / (double) frame.height() : 1;
            int thickness = thickness(picture.width());
            int scale = Math.max(1, picture.height() / 400);
            int drawn = 0;
            for (Object o : boxes) {
                if (!(o instanceof List<?> b) || b.size() < 6 || !(b.get(2) instanceof Number x) || !(b.get(3) instanceof Number y)
                        || !(b.get(4) instanceof Number w) || !(b.get(5) instanceof Number h)) {
                    continue;
                }
                String name = b.get(0) instanceof String s ? s : "?";
                int[] rgb = colourOf(name);
                int x0 = clamp((int) Math.floor(x.doubleValue() * sx) & ~1, 0, picture.width());
                int y0 = clamp((int) Math.floor(y.doubleValue() * sy) & ~1, 0, picture.height());
                int x1 = clamp(even((int) Math.ceil((x.doubleValue() + w.doubleValue()) * sx)), 0, picture.width());
                int y1 = clamp(even((int) Math.ceil((y.doubleValue() + h.doubleValue()) * sy)), 0, picture.height());
                if (x1 - x0 < 2 || y1 - y0 < 2) continue;
                c.fill(x0, y0, x1, Math.min(y1, y0 + thickness), rgb);
                c.fill(x0, Math.max(y0, y1 - thickness), x1, y1, rgb);
                c.fill(x0, y0, Math.min(x1, x0 + thickness), y1, rgb);
                c.fill(Math.max(x0, x1 - thickness), y0, x1, y1, rgb);
                c.label(label(name, b.get(1), b.size() > 6 ? b.get(6) : null), x0, y0, scale, rgb);
                drawn++;
            }
            return drawn;
        }

        void release() {
            if (sws != null) {
                sws_freeContext(sws);
                sws = null;
            }
            if (packet != null) av_packet_free(packet);
            if (encoded != null) av_packet_free(encoded);
            packet = null;
            encoded = null;
            if (decoded != null) av_frame_free(decoded);
            if (picture != null) av_frame_free(picture);
            decoded = null;
            picture = null;
            if (decoder != null) avcodec_free_context(decoder);
            if (encoder != null) avcodec_free_context(encoder);
            decoder = null;
            encoder = null;
            if (oc != null) {
                if (oc.pb() != null && !oc.pb().isNull()) avio_closep(oc.pb());
                avformat_free_context(oc);
                oc = null;
            }
            if (ic != null) {
                avformat_close_input(ic);
                ic = null;
            }
        }
    }

    /** What the dashboard writes beside a box: {@code #track class confidence}, each part when known. */
    static String label(String name, Object confidence, Object track) {
        StringBuilder out = new StringBuilder();
        if (track instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) out.append('#').append(n.longValue()).append(' ');
        else if (track != null) out.append('#').append(track).append(' ');
        out.append(name);
        if (confidence instanceof Number c) out.append(' ').append(String.format(java.util.Locale.ROOT, "%.2f", c.doubleValue()));
        return out.toString();
    }

    /** The outline's width: 2 px up to 640 wide, thicker on larger pictures; even, so that 4:2:0 chroma covers it whole. */
    static int thickness(int width) { return even(Math.max(2, Math.round(width / 320f))); }

    private static int even(int v) { return (v + 1) & ~1; }

    private static int clamp(int v, int lo, int hi) { return Math.max(lo, Math.min(hi, v)); }

    /**
     * The class's colour as the dashboard draws it (review.js classColor: hue from the name's characters, 70 %
     * saturation, 55 % lightness), as RGB 0-255.
     */
    static int[] colourOf(String name) {
        int hue = 0;
        for (int i = 0; i < name.length(); i++) hue = (hue * 31 + name.charAt(i)) % 360;
        double s = 0.7;
        double l = 0.55;
        double a = s * Math.min(l, 1 - l);
        int[] rgb = new int[3];
        int[] n = {0, 8, 4};
        for (int i = 0; i < 3; i++) {
            double k = (n[i] + hue / 30.0) % 12;
            double v = l - a * Math.max(-1, Math.min(Math.min(k - 3, 9 - k), 1));
            rgb[i] = (int) Math.round(v * 255);
        }
        return rgb;
    }

    /** Drawing on a 4:2:0 picture in studio range. */
    private static final class Canvas {
        final ByteBuffer y;
        final ByteBuffer u;
        final ByteBuffer v;
        final int ys;
        final int cs;
        final int width;
        final int height;
        final boolean bt709;

        Canvas(AVFrame p, boolean bt709) {
            width = p.width();
            height = p.height();
            ys = p.linesize(0);
            cs = p.linesize(1);
            y = p.data(0).capacity((long) ys * height).asBuffer();
            u = p.data(1).capacity((long) cs * ((height + 1) / 2)).asBuffer();
            v = p.data(2).capacity((long) cs * ((height + 1) / 2)).asBuffer();
            this.bt709 = bt709;
        }

        /** Y, Cb, Cr of an RGB colour (BT.601, or BT.709 for HD pictures tagged so), studio range. */
        int[] yuv(int[] rgb) {
            double r = rgb[0] / 255.0;
            double g = rgb[1] / 255.0;
            double b = rgb[2] / 255.0;
            double kr = bt709 ? 0.2126 : 0.299;
            double kb = bt709 ? 0.0722 : 0.114;
            double luma = kr * r + (1 - kr - kb) * g + kb * b;
            double cb = (b - luma) / (2 * (1 - kb));
            double cr = (r - luma) / (2 * (1 - kr));
            return new int[] {(int) Math.round(16 + 219 * luma), (int) Math.round(128 + 224 * cb), (int) Math.round(128 + 224 * cr)};
        }

        /** [x0, x1) x [y0, y1) in the colour; even corners cover their chroma samples whole. */
        void fill(int x0, int y0, int x1, int y1, int[] rgb) {
            int[] c = yuv(rgb);
            for (int j = y0; j < y1; j++) {
                for (int i = x0; i < x1; i++) y.put(j * ys + i, (byte) c[0]);
            }
            for (int j = y0 / 2; j < (y1 + 1) / 2; j++) {
                for (int i = x0 / 2; i < (x1 + 1) / 2; i++) {
                    u.put(j * cs + i, (byte) c[1]);
                    v.put(j * cs + i, (byte) c[2]);
                }
            }
        }

        /** {@code text} on a band of the colour above the box at (x, top), or inside its top when there is no room. */
        void label(String text, int x, int top, int scale, int[] rgb) {
            int h = even(Font.HEIGHT * scale + 2 * scale);
            int w = even(text.length() * (Font.WIDTH + 1) * scale + 2 * scale);
            int y0 = top - h >= 0 ? top - h : top;
            int x1 = Math.min(width, x + w);
            int y1 = Math.min(height, y0 + h);
            if (x1 <= x || y1 <= y0) return;
            fill(x, y0, x1, y1, rgb);
            // dark letters on a light band, light on a dark one: only luma, the band's colour stays around them
            byte ink = (byte) (yuv(rgb)[0] > 120 ? 16 : 235);
            int cx = x + scale;
            for (int k = 0; k < text.length(); k++, cx += (Font.WIDTH + 1) * scale) {
                byte[] glyph = Font.glyph(text.charAt(k));
                for (int col = 0; col < Font.WIDTH; col++) {
                    for (int row = 0; row < Font.HEIGHT; row++) {
                        if ((glyph[col] >> row & 1) == 0) continue;
                        for (int dy = 0; dy < scale; dy++) {
                            int py = y0 + scale + row * scale + dy;
                            if (py >= y1) continue;
                            for (int dx = 0; dx < scale; dx++) {
                                int px = cx + col * scale + dx;
                                if (px < x1) y.put(py * ys + px, ink);
                            }
                        }
                    }
                }
            }
        }
    }

    /** A 5x7 pixel font of the characters a label needs (letters drawn as capitals): each glyph 5 columns, bit 0 on top. */
    static final class Font {
        static final int WIDTH = 5;
        static final int HEIGHT = 7;
        private static final String CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#.-_? ";
        private static final int[][] GLYPHS = {
            {0x7E, 0x11, 0x11, 0x11, 0x7E}, {0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22},
            {0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41}, {0x7F, 0x09, 0x09, 0x09, 0x01},
            {0x3E, 0x41, 0x49, 0x49, 0x7A}, {0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00},
            {0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41}, {0x7F, 0x40, 0x40, 0x40, 0x40},
            {0x7F, 0x02, 0x0C, 0x02, 0x7F}, {0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E},
            {0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E}, {0x7F, 0x09, 0x19, 0x29, 0x46},
            {0x46, 0x49, 0x49, 0x49, 0x31}, {0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F},
            {0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x3F, 0x40, 0x38, 0x40, 0x3F}, {0x63, 0x14, 0x08, 0x14, 0x63},
            {0x07, 0x08, 0x70, 0x08, 0x07}, {0x61, 0x51, 0x49, 0x45, 0x43},
            {0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00}, {0x42, 0x61, 0x51, 0x49, 0x46},
            {0x21, 0x41, 0x45, 0x4B, 0x31}, {0x18, 0x14, 0x12, 0x7F, 0x10}, {0x27, 0x45, 0x45, 0x45, 0x39},
            {0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03}, {0x36, 0x49, 0x49, 0x49, 0x36},
            {0x06, 0x49, 0x49, 0x29, 0x1E},
            {0x14, 0x7F, 0x14, 0x7F, 0x14}, {0x00, 0x60, 0x60, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08},
            {0x40, 0x40, 0x40, 0x40, 0x40}, {0x02, 0x01, 0x51, 0x09, 0x06}, {0x00, 0x00, 0x00, 0x00, 0x00},
        };
        private static final byte[][] BYTES = new byte[GLYPHS.length][];

        static {
            for (int i = 0; i < GLYPHS.length; i++) {
                BYTES[i] = new byte[WIDTH];
                for (int c = 0; c < WIDTH; c++) BYTES[i][c] = (byte) GLYPHS[i][c];
            }
        }

        private Font() {}

        /** The glyph of {@code ch}: letters as capitals, a character without one as '?'. */
        static byte[] glyph(char ch) {
            int i = CHARS.indexOf(Character.toUpperCase(ch));
            return BYTES[i >= 0 ? i : CHARS.indexOf('?')];
        }
    }

    /** The log's rows read with jackson-core's streaming parser: lists of strings, numbers (as doubles), booleans, null. */
    static final class Json {
        private static final com.fasterxml.jackson.core.JsonFactory FACTORY = new com.fasterxml.jackson.core.JsonFactory();

        private Json() {}

        /** The list {@code text} holds; {@link IllegalArgumentException} when it is not one. */
        static List<Object> parseList(String text) {
            try (com.fasterxml.jackson.core.JsonParser p = FACTORY.createParser(text == null ? "" : text)) {
                if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_ARRAY) throw new IllegalArgumentException("not a JSON list: " + text);
                List<Object> list = list(p);
                if (p.nextToken() != null) throw new IllegalArgumentException("not a JSON list: " + text);
                return list;
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("not a JSON list: " + text + " (" + e.getMessage() + ")", e);
            }
        }

        /** The list whose START_ARRAY the parser is on, to its END_ARRAY. */
        private static List<Object> list(com.fasterxml.jackson.core.JsonParser p) throws java.io.IOException {
            List<Object> out = new java.util.ArrayList<>();
            for (com.fasterxml.jackson.core.JsonToken t = p.nextToken(); t != com.fasterxml.jackson.core.JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t == null) throw new java.io.IOException("the list is not closed");
                out.add(switch (t) {
                    case START_ARRAY -> list(p);
                    case VALUE_STRING -> p.getText();
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getValueAsDouble();
                    case VALUE_TRUE -> Boolean.TRUE;
                    case VALUE_FALSE -> Boolean.FALSE;
                    case VALUE_NULL -> null;
                    default -> throw new java.io.IOException("expected a list, a string, a number, a boolean or null, found " + t);
                });
            }
            return out;
        }
    }
}
