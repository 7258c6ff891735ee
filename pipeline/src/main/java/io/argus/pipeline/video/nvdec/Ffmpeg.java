package io.argus.pipeline.video.nvdec;

import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

/** FFmpeg error codes as words. */
final class Ffmpeg {
    private Ffmpeg() {}

    static String error(int code) {
        byte[] buf = new byte[256];
        av_strerror(code, buf, buf.length);
        int n = 0;
        while (n < buf.length && buf[n] != 0) n++;
        return new String(buf, 0, n) + " (" + code + ")";
    }
}
