package io.argus.pipeline.video;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameRecorder;
import org.bytedeco.javacv.Java2DFrameConverter;

/**
 * Encodes generated frames to an MP4 with JavaCV (the sample video, the synthetic tracking video): H.264 through
 * OpenH264 where the FFmpeg build has it, else FFmpeg's own MPEG-4 Part 2 encoder (always present) at a near-lossless
 * quantiser; a keyframe a second.
 */
public final class Mp4Writer {
    private Mp4Writer() {}

    /** Writes frames 1..frames ({@code frame.apply(n)}, all of width x height, in order) at {@code fps}. */
    public static void write(Path file, int width, int height, int fps, int bitrate, long frames,
                             IntFunction<BufferedImage> frame) throws IOException {
        try {
            record(file, width, height, fps, bitrate, frames, frame, "libopenh264", avcodec.AV_CODEC_ID_H264);
        } catch (Exception e) {
            Files.deleteIfExists(file);
            try {
                record(file, width, height, fps, bitrate, frames, frame, null, avcodec.AV_CODEC_ID_MPEG4);
            } catch (Exception e2) {
                Files.deleteIfExists(file);
                throw new IOException("cannot write the video " + file + ": " + e2.getMessage(), e2);
            }
        }
    }

    private static void record(Path file, int width, int height, int fps, int bitrate, long frames,
                               IntFunction<BufferedImage> frame, String codecName, int codecId) throws Exception {
        try (FFmpegFrameRecorder r = new FFmpegFrameRecorder(file.toFile(), width, height, 0);
             Java2DFrameConverter conv = new Java2DFrameConverter()) {
            r.setFormat("mp4");
            r.setFrameRate(fps);
            r.setGopSize(fps);
            r.setVideoCodec(codecId);
            if (codecName != null) r.setVideoCodecName(codecName);
            r.setPixelFormat(avutil.AV_PIX_FMT_YUV420P);
            r.setVideoBitrate(bitrate);
            r.setVideoQuality(codecName == null ? 2 : -1);
            r.start();
            for (int n = 1; n <= frames; n++) r.record(conv.convert(frame.apply(n)));
            r.stop();
        }
    }
}
