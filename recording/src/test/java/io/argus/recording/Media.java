package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_NOPTS_VALUE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * Test video made by Debian's ffmpeg (x264, x265) and read back packet by packet, as a camera's connection hands them
 * to the recorder; ffprobe (another program) counts what the segments hold.
 */
final class Media {
    private Media() {}

    /** Encoded once per build: under target/, shared by the test classes and their JVMs. */
    private static final Path SHARED = Path.of("target", "test-media");

    /** {@code seconds} of a moving test pattern at 25 fps, a keyframe each {@code gop} frames, B-frames on. */
    static Path encode(String codec, int seconds, int gop) throws Exception {
        Files.createDirectories(SHARED);
        Path file = SHARED.resolve(codec + "-" + seconds + "s-g" + gop + ".mp4").toAbsolutePath();
        if (Files.exists(file)) return file;
        // written under a name of this JVM's, then moved into place whole: two test JVMs may make it at once
        Path scratch = file.resolveSibling(ProcessHandle.current().pid() + "-" + file.getFileName());
        List<String> cmd = new ArrayList<>(List.of("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=25", "-t", Integer.toString(seconds), "-c:v", codec, "-g", Integer.toString(gop),
                "-keyint_min", Integer.toString(gop), "-bf", "2", "-preset", "ultrafast", "-pix_fmt", "yuv420p"));
        if (codec.equals("libx264")) cmd.addAll(List.of("-x264-params", "scenecut=0"));
        if (codec.equals("libx265")) cmd.addAll(List.of("-x265-params", "scenecut=0:log-level=error"));
        cmd.add(scratch.toString());
        run(cmd);
        Files.move(scratch, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return file;
    }

    /** ffprobe's count of the video packets in {@code file}. */
    static long ffprobePackets(Path file) throws Exception {
        return Long.parseLong(run(List.of("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file.toString())).trim());
    }

    /** ffprobe's duration of {@code file}'s video stream in seconds. */
    static double ffprobeSeconds(Path file) throws Exception {
        return Double.parseDouble(run(List.of("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                "csv=p=0", file.toString())).trim());
    }

    /** What ffmpeg says when it decodes {@code file} whole ("" when it decodes cleanly). */
    static String decodeErrors(Path file) throws Exception {
        return run(List.of("ffmpeg", "-v", "error", "-i", file.toString(), "-f", "null", "-")).trim();
    }

    static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": still running after 120 s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + text);
        return text;
    }

    interface PacketSink {
        void packet(AVPacket packet, long wallMs) throws Exception;
    }

    interface StreamSink {
        void stream(AVCodecParameters parameters, AVRational timeBase) throws Exception;
    }

    /**
     * Reads {@code file}'s video packets in order and hands each on with the wall-clock time a camera streaming it
     * live from {@code startMs} would deliver it at (its decoding time); returns how many.
     */
    static long read(Path file, long startMs, StreamSink onStream, PacketSink onPacket) throws Exception {
        AVFormatContext ic = new AVFormatContext(null);
        Ffmpeg.check(avformat_open_input(ic, file.toString(), null, null), "open " + file);
        AVPacket p = av_packet_alloc();
        try {
            Ffmpeg.check(avformat_find_stream_info(ic, (org.bytedeco.javacpp.PointerPointer<?>) null), "stream info");
            int v = Ffmpeg.check(av_find_best_stream(ic, AVMEDIA_TYPE_VIDEO, -1, -1, (org.bytedeco.ffmpeg.avcodec.AVCodec) null, 0), "video stream");
            AVRational tb = ic.streams(v).time_base();
            onStream.stream(ic.streams(v).codecpar(), tb);
            long first = AV_NOPTS_VALUE;
            long n = 0;
            while (av_read_frame(ic, p) >= 0) {
                try {
                    if (p.stream_index() != v) continue;
                    if (first == AV_NOPTS_VALUE) first = p.dts();
                    long wall = startMs + Math.round((p.dts() - first) * 1000.0 * tb.num() / tb.den());
                    onPacket.packet(p, wall);
                    n++;
                } finally {
                    av_packet_unref(p);
                }
            }
            return n;
        } finally {
            av_packet_free(p);
            avformat_close_input(ic);
        }
    }
}
