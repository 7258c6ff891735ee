package io.argus.pipeline.camera;

import io.argus.recording.PacketSink;

import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.video.nvdec.NvdecDecoder;
import io.argus.pipeline.video.NvdecRefusal;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.global.avutil;

/**
 * NVDEC on the camera's model's GPU: each picture stays there as an NV12 surface held by its {@link VideoFrame}
 * until the batch that converts it has run, then goes back to FFmpeg's pool. The camera's {@link FramePool} bounds
 * how many surfaces it holds at once (as it bounds host buffers for the CPU decoder). Opening or the first picture
 * may throw an {@link NvdecRefusal}: the reader falls back to the CPU decoder ({@code decoder: auto}) or reports it.
 */
final class NvdecFrameDecoder implements FrameDecoder {
    private final String camera;
    private final CameraUrl source;
    private final CameraSettings settings;
    private final int device;
    private final FramePool pool;
    private final PacketSink packets;
    private volatile NvdecDecoder decoder;
    private NvdecDecoder.HeldPicture last;
    private volatile long packetsAtPicture;

    NvdecFrameDecoder(String camera, CameraUrl source, CameraSettings settings, int device, FramePool pool) {
        this(camera, source, settings, device, pool, PacketSink.NONE);
    }

    /** {@code packets}: where each video packet goes before NVDEC decodes it (the recorder). */
    NvdecFrameDecoder(String camera, CameraUrl source, CameraSettings settings, int device, FramePool pool,
                      PacketSink packets) {
        this.packets = packets;
        this.camera = camera;
        this.source = source;
        this.settings = settings;
        this.device = device;
        this.pool = pool;
    }

    @Override
    public String name() { return "nvdec"; }

    /**
     * Why NVDEC cannot read {@code source} before trying, or null. Only a capture device is refused here: it delivers
     * raw or MJPEG pictures. An RTSP source names its demuxer ({@code format} "rtsp") and is a compressed stream like
     * a file; refusing every source with a format, as this once did, kept every RTSP camera off NVDEC.
     */
    static String refusal(CameraUrl source) {
        return source.kind() == CameraUrl.Kind.USB
                ? "a " + source.format() + " device delivers raw or MJPEG frames, not a compressed stream NVDEC decodes"
                : null;
    }

    @Override
    public void open() throws NvdecRefusal {
        String refused = refusal(source);
        if (refused != null) throw new NvdecRefusal(camera, NvdecRefusal.Reason.CODEC_UNSUPPORTED, refused);
        AVDictionary options = new AVDictionary(null);
        try {
            source.inputOptions(settings.connectTimeoutMs()).forEach((k, v) -> avutil.av_dict_set(options, k, v, 0));
            decoder = NvdecDecoder.open(camera, device, source.input(), options, packets);
        } finally {
            avutil.av_dict_free(options);
        }
    }

    @Override
    public int width() { return decoder.width(); }

    @Override
    public int height() { return decoder.height(); }

    @Override
    public boolean decode() throws NvdecRefusal {
        letGo();
        last = decoder.next();
        packetsAtPicture = decoder.videoPackets();
        return last != null;
    }

    @Override
    public long ptsMicros() { return last.ptsMicros(); }

    @Override
    public VideoFrame take(FrameStamp s) {
        NvdecDecoder.HeldPicture p = last;
        last = null;
        if (!pool.acquireHeld()) {
            p.close();
            return null;
        }
        return VideoFrame.onGpu(s.cameraId(), s.number(), s.ptsMs(), s.captureTimeMs(), s.captureNanos(), s.decodeMs(),
                p.surface(), device, () -> {
                    p.close();
                    pool.releaseHeld();
                }, s.fate());
    }

    @Override
    public boolean packetsSincePicture() {
        NvdecDecoder d = decoder;
        return d != null && d.videoPackets() > packetsAtPicture;
    }

    @Override
    public boolean waiting() { return decoder != null && decoder.waitingForDevice(); }

    @Override
    public boolean rewind() {
        letGo();
        return decoder.rewind();
    }

    private void letGo() {
        if (last != null) last.close();
        last = null;
    }

    @Override
    public void close() {
        letGo();
        if (decoder != null) decoder.close();
    }
}
