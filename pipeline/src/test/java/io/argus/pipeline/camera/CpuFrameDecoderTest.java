package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.ArgusConfig.Reconnect;
import io.argus.pipeline.config.CameraUrl;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The CPU decoder's FFmpeg settings: an RTSP camera's input opens with {@code max_delay}, so that FFmpeg's RTSP
 * demuxer waits for reordered RTP packets (with -1, the default JavaCV once forced over the option, a UDP camera
 * behind 200 +-50 ms of jitter kept a fraction of its frames: docs/reliability.md, UDP behind jitter); a file keeps
 * FFmpeg's default. The behaviour itself is measured by {@code CameraNetworkFaultsTest#reorderingAloneFor15Seconds}
 * (root, network namespaces).
 */
@Budget(seconds = 10)
class CpuFrameDecoderTest {
    static final CameraSettings SETTINGS = new CameraSettings(5000, 20_000, 5000, 6, false, 1, new Reconnect(500, 30_000, 2, 0.1), "quiet");

    @Test
    void rtspCamerasWaitForReorderedPackets() {
        for (String transport : new String[] {"udp", "tcp"}) {
            CpuFrameDecoder d = new CpuFrameDecoder(CameraUrl.parse("rtsp://camera.invalid/stream", transport, Path.of(".")),
                    SETTINGS, null);
            try {
                assertEquals(Integer.toString(CameraUrl.RTP_REORDER_DELAY_US), d.inputOptions().get("max_delay"), transport);
            } finally {
                d.close();
            }
        }
    }

    @Test
    void filesKeepFfmpegsDefault() throws Exception {
        Path f = java.nio.file.Files.createTempFile("argus-cpu-decoder", ".mp4");
        try {
            CpuFrameDecoder d = new CpuFrameDecoder(CameraUrl.parse(f.toString(), null, Path.of(".")), SETTINGS, null);
            try {
                assertEquals(null, d.inputOptions().get("max_delay"));
            } finally {
                d.close();
            }
        } finally {
            java.nio.file.Files.deleteIfExists(f);
        }
    }

    /**
     * Every picture of a file, in order, as BGR equal to what Debian's ffmpeg makes of it (within a step of rounding:
     * the same swscale, another build), and every video packet handed to the sink before decoding, as ffprobe counts
     * them.
     */
    @Test
    void picturesAsFfmpegDecodesThemAndEveryPacketToTheSink() throws Exception {
        Path file = io.argus.pipeline.testing.TestMedia.h264(320, 240, 25, 2);
        long[] packets = {0};
        boolean[] started = {false, false};
        io.argus.recording.PacketSink sink = new io.argus.recording.PacketSink() {
            @Override public void streamStarted(org.bytedeco.ffmpeg.avcodec.AVCodecParameters p, org.bytedeco.ffmpeg.avutil.AVRational tb) {
                started[0] = true;
            }

            @Override public void packet(org.bytedeco.ffmpeg.avcodec.AVPacket p, long wallMs) { packets[0]++; }

            @Override public void streamEnded() { started[1] = true; }
        };
        io.argus.pipeline.frames.FramePool pool = new io.argus.pipeline.frames.FramePool(4);
        byte[] reference = ffmpegBgr(file, 320 * 240 * 3 * 50);
        int pictures = 0;
        long lastPts = -1;
        try (CpuFrameDecoder d = new CpuFrameDecoder(CameraUrl.parse(file.toString(), null, Path.of(".")), SETTINGS, pool, sink)) {
            d.open();
            assertEquals(320, d.width());
            assertEquals(240, d.height());
            while (d.decode()) {
                org.junit.jupiter.api.Assertions.assertTrue(d.ptsMicros() > lastPts, "pts increase: " + d.ptsMicros());
                lastPts = d.ptsMicros();
                io.argus.pipeline.frames.VideoFrame f = d.take(new FrameDecoder.FrameStamp("cam", pictures, 0, 0, 0, 0, null));
                java.nio.ByteBuffer px = f.image().pixels();
                int worst = 0;
                for (int i = 0; i < 320 * 240 * 3; i++) {
                    worst = Math.max(worst, Math.abs((px.get(i) & 0xff) - (reference[pictures * 320 * 240 * 3 + i] & 0xff)));
                }
                org.junit.jupiter.api.Assertions.assertTrue(worst <= 2, "picture " + pictures + ": largest difference " + worst);
                f.release();
                pictures++;
            }
        }
        assertEquals(50, pictures);
        assertEquals(40_000 * 49, lastPts - 0, 1, "25 fps: the 50th picture 1.96 s after the first");
        org.junit.jupiter.api.Assertions.assertTrue(started[0] && started[1], "the sink told of the stream's start and end");
        assertEquals(Long.parseLong(run("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                "stream=nb_read_packets", "-of", "csv=p=0", file.toString()).trim()), packets[0]);
    }

    private static byte[] ffmpegBgr(Path file, int bytes) throws Exception {
        Process p = new ProcessBuilder("ffmpeg", "-v", "error", "-i", file.toString(), "-f", "rawvideo", "-pix_fmt", "bgr24",
                "-sws_flags", "bilinear", "-").start();
        byte[] out = p.getInputStream().readAllBytes();
        p.waitFor();
        assertEquals(bytes, out.length, "ffmpeg's BGR pictures");
        return out;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }
}
