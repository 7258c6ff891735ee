package io.argus.pipeline.camera;

import io.argus.detector.BgrImage;
import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.video.Seekable;
import java.nio.ByteBuffer;
import java.util.Map;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;

/**
 * FFmpeg's software decoders through JavaCV: each picture converted to BGR and copied into a buffer of the camera's
 * {@link FramePool}. JavaCV's {@code start()}/{@code release()} synchronise on one global monitor, so a connect that
 * never returns would stall every camera's (re)connect: we call the {@code Unsafe} variants (FFmpeg 8's open
 * functions are thread-safe; each grabber is used by one thread only).
 */
final class CpuFrameDecoder implements FrameDecoder {
    private final FFmpegFrameGrabber grabber;
    private final FramePool pool;
    private Frame last;
    /** Guards {@link #video} between the watchdog's question and {@link #close} (which frees what it points into). */
    private final Object videoLock = new Object();
    private AVStream video;

    CpuFrameDecoder(CameraUrl source, CameraSettings settings, FramePool pool) {
        this.pool = pool;
        grabber = new FFmpegFrameGrabber(source.input());
        if (source.format() != null) grabber.setFormat(source.format());
        grabber.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
        Map<String, String> options = source.inputOptions(settings.connectTimeoutMs());
        options.forEach(grabber::setOption);
        // JavaCV writes its own maxDelay into AVFormatContext.max_delay after opening, over the max_delay option (its
        // default, -1, made FFmpeg drop every reordered RTP packet of a UDP camera): see CameraUrl.RTP_REORDER_DELAY_US
        grabber.setMaxDelay(Integer.parseInt(options.getOrDefault("max_delay", "-1")));
        if (settings.decoderThreads() > 0) grabber.setVideoOption("threads", Integer.toString(settings.decoderThreads()));
    }

    /** The grabber, unopened until {@link #open}: for tests of its settings. */
    FFmpegFrameGrabber grabber() { return grabber; }

    @Override
    public String name() { return "cpu"; }

    @Override
    public void open() throws Exception {
        grabber.startUnsafe(true);
        AVFormatContext oc = grabber.getFormatContext();
        synchronized (videoLock) {
            for (int i = 0; oc != null && i < oc.nb_streams(); i++) {
                if (oc.streams(i).codecpar().codec_type() == avutil.AVMEDIA_TYPE_VIDEO) {
                    video = oc.streams(i);
                    break;
                }
            }
        }
        pictureTaken();
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
    public int width() { return grabber.getImageWidth(); }

    @Override
    public int height() { return grabber.getImageHeight(); }

    @Override
    public boolean decode() throws Exception {
        while (true) {
            Frame f = grabber.grabImage();
            if (f == null) return false;
            if (f.image == null || f.image[0] == null) continue;
            last = f;
            pictureTaken();
            return true;
        }
    }

    @Override
    public long ptsMicros() { return last.timestamp; }

    @Override
    public VideoFrame take(FrameStamp s) {
        int bytes = last.imageStride * last.imageHeight;
        ByteBuffer buf = pool.acquire(bytes);
        if (buf == null) return null;
        buf.put(0, (ByteBuffer) last.image[0], 0, bytes);
        return new VideoFrame(s.cameraId(), s.number(), s.ptsMs(), s.captureTimeMs(), s.captureNanos(), s.decodeMs(),
                new BgrImage(last.imageWidth, last.imageHeight, last.imageStride, buf.slice(0, bytes)), pool, buf,
                s.onSuperseded());
    }

    @Override
    public boolean rewind() {
        // A pipe cannot go back: FFmpeg's seek "succeeds" inside its read buffer and the camera would replay stale
        // bytes forever instead of reopening (an unplugged writer looked like a stream that never ends)
        if (!Seekable.of(grabber.getFormatContext())) return false;
        try {
            grabber.setTimestamp(0L);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public void close() {
        synchronized (videoLock) {
            video = null;
        }
        try {
            grabber.releaseUnsafe();
        } catch (Exception e) {
            System.getLogger("argus.camera").log(System.Logger.Level.DEBUG, "release failed: " + e.getMessage());
        }
    }
}
