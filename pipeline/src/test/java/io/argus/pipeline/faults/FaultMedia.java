package io.argus.pipeline.faults;

import io.argus.pipeline.testing.TestMedia;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Faulty streams for the camera fault tests, as MPEG-TS files (cached under target/test-media): one that changes
 * resolution mid-way, one with bit-flipped H.264 in its middle. MPEG-TS because it carries a new SPS mid-stream (an
 * MP4 has one set of parameters per track) and because its 188-byte packets can be corrupted without breaking the
 * container: only the payload of packets that start no PES is touched, so timestamps stay intact and the server keeps
 * real time while the decoder gets damaged slices.
 */
final class FaultMedia {
    static final int FPS = 10;

    private FaultMedia() {}

    /** {@code first} seconds at 320x240, then {@code then} seconds at 640x360. */
    static synchronized Path resolutionChange(int first, int then) throws IOException, InterruptedException {
        Path out = TestMedia.dir().resolve("res-change-320x240-" + first + "s-640x360-" + then + "s.ts");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path a = segment(320, 240, first);
        Path b = segment(640, 360, then);
        concat(List.of(a, b), out);
        return out;
    }

    /**
     * {@code clean} seconds, then {@code flipped} seconds whose H.264 has one bit flipped in every 15th TS packet (a
     * packet that starts no PES, byte 4 or later: after the TS header), then {@code after} clean seconds; 320x240.
     */
    static synchronized Path bitFlipped(int clean, int flipped, int after) throws IOException, InterruptedException {
        Path out = TestMedia.dir().resolve("bitflip-320x240-" + clean + "s-" + flipped + "s-" + after + "s.ts");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path all = TestMedia.dir().resolve("bitflip-src-" + (clean + flipped + after) + "s.ts");
        if (!Files.isRegularFile(all)) encode(320, 240, clean + flipped + after, all);
        byte[] ts = Files.readAllBytes(all);
        flip(ts, clean * 90_000L, (clean + flipped) * 90_000L);
        Path tmp = TestMedia.scratchFor(out, ".ts");
        Files.write(tmp, ts);
        TestMedia.publish(tmp, out);
        return out;
    }

    /** One clean stream at 320x240 (the file a server switches to once a faulty session ended). */
    static Path clean(int seconds) throws IOException, InterruptedException { return segment(320, 240, seconds); }

    /** Flips bits in the video payload of packets whose PES presentation time (from the first) is in [from, to). */
    static int flip(byte[] ts, long from90k, long to90k) {
        SplittableRandom random = new SplittableRandom(17);
        long first = -1, pts = -1;
        int flips = 0, packet = 0;
        for (int off = 0; off + 188 <= ts.length; off += 188, packet++) {
            if (ts[off] != 0x47) continue;
            boolean start = (ts[off + 1] & 0x40) != 0;
            int pid = ((ts[off + 1] & 0x1f) << 8) | (ts[off + 2] & 0xff);
            int afc = (ts[off + 3] >> 4) & 3;
            int payload = off + 4 + ((afc & 2) != 0 ? 1 + (ts[off + 4] & 0xff) : 0);
            if ((afc & 1) == 0 || payload >= off + 188 || pid < 0x20 || pid == 0x1fff) continue;
            if (start) {
                // PES: 00 00 01 sid len(2) flags(2) hlen, PTS when flags say so
                int p = payload;
                if (p + 14 <= off + 188 && ts[p] == 0 && ts[p + 1] == 0 && ts[p + 2] == 1 && (ts[p + 3] & 0xf0) == 0xe0
                        && (ts[p + 7] & 0x80) != 0) {
                    long v = ((long) (ts[p + 9] & 0x0e) << 29) | ((ts[p + 10] & 0xff) << 22) | ((ts[p + 11] & 0xfe) << 14)
                            | ((ts[p + 12] & 0xff) << 7) | ((ts[p + 13] & 0xfe) >> 1);
                    if (first < 0) first = v;
                    pts = v - first;
                }
                continue;
            }
            if (pts >= from90k && pts < to90k && packet % 15 == 0) {
                int at = payload + random.nextInt(off + 188 - payload);
                ts[at] ^= (byte) (1 << random.nextInt(8));
                flips++;
            }
        }
        return flips;
    }

    private static Path segment(int w, int h, int seconds) throws IOException, InterruptedException {
        Path out = TestMedia.dir().resolve("seg-" + w + "x" + h + "-" + FPS + "fps-" + seconds + "s.ts");
        if (!Files.isRegularFile(out)) encode(w, h, seconds, out);
        return out;
    }

    /** testsrc2, keyframe every second, SPS/PPS before every keyframe (a client may join or resync anywhere). */
    private static void encode(int w, int h, int seconds, Path out) throws IOException, InterruptedException {
        Path tmp = TestMedia.scratchFor(out, ".ts");
        run(List.of("ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=" + w + "x" + h + ":rate=" + FPS,
                "-t", Integer.toString(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
                "-pix_fmt", "yuv420p", "-g", Integer.toString(FPS), "-bf", "0", "-x264-params", "repeat-headers=1",
                "-f", "mpegts", tmp.toString()));
        TestMedia.publish(tmp, out);
    }

    private static void concat(List<Path> parts, Path out) throws IOException, InterruptedException {
        Path list = TestMedia.scratchFor(out, ".txt");
        List<String> lines = new ArrayList<>();
        for (Path p : parts) lines.add("file '" + p.toAbsolutePath() + "'");
        Files.write(list, lines);
        Path tmp = TestMedia.scratchFor(out, ".ts");
        run(List.of("ffmpeg", "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", list.toString(), "-c", "copy",
                "-f", "mpegts", tmp.toString()));
        Files.delete(list);
        TestMedia.publish(tmp, out);
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException(String.join(" ", cmd) + " failed: " + text);
    }
}
