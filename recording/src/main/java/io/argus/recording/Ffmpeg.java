package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

/**
 * FFmpeg's return codes as words, and the check that turns a failed call into an exception naming it (for every
 * module that calls FFmpeg directly).
 */
public final class Ffmpeg {
    private Ffmpeg() {}

    /** E.g. "Connection refused (-111)". */
    public static String error(int code) {
        byte[] buf = new byte[256];
        av_strerror(code, buf, buf.length);
        int n = 0;
        while (n < buf.length && buf[n] != 0) n++;
        return new String(buf, 0, n) + " (" + code + ")";
    }

    /** {@code code} when it is not an error, else an exception saying {@code what} failed and why. */
    public static int check(int code, String what) throws java.io.IOException {
        if (code < 0) throw new java.io.IOException(what + ": " + error(code));
        return code;
    }
}
