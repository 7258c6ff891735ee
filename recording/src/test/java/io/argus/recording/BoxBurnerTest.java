package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Boxes burned into a clip: a stream-copied clip of a 4 s test pattern (320x240, 25 fps, B-frames) and a detection log
 * with one box in every frame but a gap of 1.2 s. The result is read back by Debian's ffmpeg (another decoder): the same
 * pictures with the same timestamps; on the pictures with a log frame within 250 ms the outline is in the class's colour
 * (the dashboard's hsl rule, computed here), elsewhere the picture is the source's within the encoder's loss.
 *
 * <p>Budget: the class took 0.6-2.8 s beside a parallel build (the test video encoded once per build, in Media).
 */
@Budget(seconds = 15)
class BoxBurnerTest {
    static final long START = 1_764_400_000_000L;
    static final int W = 320;
    static final int H = 240;
    static final int FRAME_BYTES = W * H * 3 / 2;
    /** The box in the log's pixels (the log's frames are 640x480: the box is drawn at half these). */
    static final int[] BOX = {80, 120, 160, 100};
    /** The same box in the picture's pixels: x0, y0, x1, y1, and the outline's width (2 px at 320 wide). */
    static final int X0 = 40;
    static final int Y0 = 60;
    static final int X1 = 120;
    static final int Y1 = 110;
    static final int T = 2;
    /** The log has no frame with its time (from the clip's start) in [GAP_FROM, GAP_TO). */
    static final long GAP_FROM = 1_200;
    static final long GAP_TO = 2_400;

    @TempDir
    Path dir;
    Path clip;
    ClipWriter.Written written;
    List<DetectionLog.Frame> log = new ArrayList<>();

    @BeforeEach
    void clip() throws Exception {
        Path source = Media.encode("libx264", 4, 25);
        clip = dir.resolve("clip.mp4");
        written = ClipWriter.write(List.of(new ClipWriter.Part(source, START)), START, START + 4_000, clip);
        assertEquals(100, written.packets());
        // a frame each 40 ms, 10 ms after the pictures' decoding times (no ties at the 250 ms limit), but in the gap
        for (long t = 0; t < 4_200; t += 40) {
            if (t >= GAP_FROM && t < GAP_TO) continue;
            log.add(new DetectionLog.Frame(written.fromMs() + t + 10, 640, 480,
                    "[[\"person\",0.9," + BOX[0] + "," + BOX[1] + "," + BOX[2] + "," + BOX[3] + ",7]]"));
        }
    }

    @Test
    void boxesAreDrawnOnThePicturesWithALogFrameNearAndTheRestIsTheSource() throws Exception {
        Path out = dir.resolve("burned.mp4");
        List<Double> progress = new ArrayList<>();
        BoxBurner.Burned b = BoxBurner.burn(clip, written.fromMs(), log, out, progress::add);

        // the same pictures at the same times
        List<Double> sourcePts = ptsOf(clip);
        assertEquals(100, sourcePts.size());
        assertEquals(sourcePts, ptsOf(out), "the pictures' timestamps");
        assertEquals(100, b.pictures());
        assertEquals(BoxBurner.ENCODER, b.encoder());
        assertTrue(Media.run(List.of("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
                "-of", "csv=p=0", out.toString())).trim().equals("h264"));
        assertEquals("", Media.decodeErrors(out), "the result decodes cleanly");

        // each picture's wall-clock time: the clip's start is its first packet's decoding time
        double firstDts = Double.parseDouble(Media.run(List.of("ffprobe", "-v", "error", "-select_streams", "v:0",
                "-show_entries", "packet=dts_time", "-read_intervals", "%+#1", "-of", "csv=p=0", clip.toString())).trim());
        byte[] src = yuv(clip);
        byte[] burned = yuv(out);
        assertEquals(100L * FRAME_BYTES, src.length);
        assertEquals(src.length, burned.length);
        int[] colour = expectedYuv("person");
        int boxed = 0;
        int unboxed = 0;
        for (int i = 0; i < 100; i++) {
            long ms = written.fromMs() + Math.round((sourcePts.get(i) - firstDts) * 1000);
            boolean near = log.stream().anyMatch(f -> Math.abs(f.timeMs() - ms) <= 250);
            int at = i * FRAME_BYTES;
            double ring = ringDistance(burned, at, colour);
            double ringVsSource = ringDifference(src, burned, at);
            if (near) {
                boxed++;
                assertTrue(ring < 12, "picture " + i + " (" + (ms - written.fromMs()) + " ms): the outline in the class's colour "
                        + Arrays.toString(colour) + ", found a mean distance of " + ring);
            } else {
                unboxed++;
                assertTrue(ringVsSource < 6, "picture " + i + " (" + (ms - written.fromMs()) + " ms): no box, the source there; "
                        + "mean difference " + ringVsSource);
                assertTrue(ring > 30, "picture " + i + ": not the box's colour: " + ring);
            }
            double rest = restDifference(src, burned, at);
            assertTrue(rest < 4, "picture " + i + ": away from the box the source within the encoder's loss; mean difference " + rest);
        }
        // the gap leaves 1.2 s - 2 x 250 ms = 0.7 s of pictures without a log frame near: 17 or 18 of them
        assertTrue(unboxed >= 16 && unboxed <= 19, "pictures without boxes: " + unboxed);
        assertEquals(boxed, b.withBoxes(), "pictures counted with boxes");

        // progress: pictures done of those expected, never back, 1 at the end
        assertTrue(progress.size() >= 50, "progress reported " + progress.size() + " times");
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i) >= progress.get(i - 1), "progress went back: " + progress);
        }
        assertTrue(progress.get(0) > 0 && progress.get(0) < 0.05, progress.toString());
        assertEquals(1.0, progress.get(progress.size() - 1));
        assertTrue(Files.list(dir).noneMatch(f -> f.toString().endsWith(".partial")), "nothing left beside the file");
        System.out.printf("burn-in of %d pictures at %dx%d (%d with the box, %d without): %d ms, %.0f pictures/s%n", b.pictures(),
                W, H, boxed, unboxed, b.millis(), b.pictures() * 1000.0 / Math.max(1, b.millis()));
    }

    @Test
    void anInterruptedBurnInStopsAndLeavesNoFile() throws Exception {
        Path out = dir.resolve("burned.mp4");
        List<Double> progress = new ArrayList<>();
        assertThrows(InterruptedException.class, () -> BoxBurner.burn(clip, written.fromMs(), log, out, f -> {
            progress.add(f);
            if (f >= 0.3) Thread.currentThread().interrupt();   // as a cancelled job's thread is
        }));
        assertTrue(Files.notExists(out), "no file under the final name");
        assertTrue(Files.list(dir).noneMatch(f -> f.toString().endsWith(".partial")), "nothing beside it");
        double last = progress.get(progress.size() - 1);
        assertTrue(last >= 0.3 && last < 0.4, "stopped within a few pictures of the interrupt: " + progress);
    }

    @Test
    void aFileThatDoesNotDecodeFailsNamingIt() throws Exception {
        Path bad = dir.resolve("not-a-video.mp4");
        Files.writeString(bad, "this is no video\n".repeat(100));
        Path out = dir.resolve("burned.mp4");
        IOException e = assertThrows(IOException.class, () -> BoxBurner.burn(bad, START, log, out, f -> {}));
        assertTrue(e.getMessage().contains(bad.toString()), e.getMessage());
        assertTrue(Files.notExists(out));
        assertTrue(Files.list(dir).noneMatch(f -> f.toString().endsWith(".partial")));
    }

    @Test
    void theNearestLogFrameWithin250Ms() {
        DetectionLog.Frame a = new DetectionLog.Frame(1_000, 1, 1, "[]");
        DetectionLog.Frame b = new DetectionLog.Frame(1_300, 1, 1, "[]");
        List<DetectionLog.Frame> frames = List.of(a, b);
        assertSame(a, BoxBurner.nearest(frames, 750));
        assertNull(BoxBurner.nearest(frames, 749));
        assertSame(a, BoxBurner.nearest(frames, 1_149));
        assertSame(b, BoxBurner.nearest(frames, 1_151));
        assertSame(b, BoxBurner.nearest(frames, 1_550));
        assertNull(BoxBurner.nearest(frames, 1_551));
        assertNull(BoxBurner.nearest(List.of(), 1_000));
    }

    @Test
    void theLogsRowsParse() {
        List<Object> rows = BoxBurner.Json.parseList("[[\"traffic \\\"light\\\"\",0.5,1.5,2,3e1,4,null], [\"dog\",1,0,0,1,1,\"t9\"]]");
        assertEquals(List.of("traffic \"light\"", 0.5, 1.5, 2.0, 30.0, 4.0), ((List<?>) rows.get(0)).subList(0, 6));
        assertNull(((List<?>) rows.get(0)).get(6));
        assertEquals("t9", ((List<?>) rows.get(1)).get(6));
        assertThrows(IllegalArgumentException.class, () -> BoxBurner.Json.parseList("[[\"a\", 1"));
        assertThrows(IllegalArgumentException.class, () -> BoxBurner.Json.parseList("{\"a\": 1}"));
        // the label as the dashboard writes it beside the box
        assertEquals("#7 person 0.90", BoxBurner.label("person", 0.9, 7.0));
        assertEquals("#t9 dog 1.00", BoxBurner.label("dog", 1.0, "t9"));
        assertEquals("car", BoxBurner.label("car", null, null));
    }

    /** The class's colour as the dashboard draws it, hsl(h 70% 55%), in studio-range BT.601 Y, Cb, Cr. */
    static int[] expectedYuv(String name) {
        int h = 0;
        for (char c : name.toCharArray()) h = (h * 31 + c) % 360;
        double c = (1 - Math.abs(2 * 0.55 - 1)) * 0.7;
        double x = c * (1 - Math.abs((h / 60.0) % 2 - 1));
        double m = 0.55 - c / 2;
        double[] rgb = switch (h / 60) {
            case 0 -> new double[] {c, x, 0};
            case 1 -> new double[] {x, c, 0};
            case 2 -> new double[] {0, c, x};
            case 3 -> new double[] {0, x, c};
            case 4 -> new double[] {x, 0, c};
            default -> new double[] {c, 0, x};
        };
        double r = rgb[0] + m;
        double g = rgb[1] + m;
        double b = rgb[2] + m;
        return new int[] {(int) Math.round(16 + 65.481 * r + 128.553 * g + 24.966 * b),
            (int) Math.round(128 - 37.797 * r - 74.203 * g + 112.0 * b), (int) Math.round(128 + 112.0 * r - 93.786 * g - 18.214 * b)};
    }

    private static boolean onRing(int x, int y) {
        boolean inside = x >= X0 && x < X1 && y >= Y0 && y < Y1;
        boolean within = x >= X0 + T && x < X1 - T && y >= Y0 + T && y < Y1 - T;
        return inside && !within;
    }

    /** Mean distance of the outline's pixels (Y, and Cb, Cr of its chroma samples) from the colour. */
    private static double ringDistance(byte[] f, int at, int[] yuv) {
        double sum = 0;
        int n = 0;
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                if (!onRing(x, y)) continue;
                sum += Math.abs((f[at + y * W + x] & 0xff) - yuv[0]);
                n++;
                if (x % 2 == 0 && y % 2 == 0) {
                    int c = (y / 2) * (W / 2) + x / 2;
                    sum += Math.abs((f[at + W * H + c] & 0xff) - yuv[1]);
                    sum += Math.abs((f[at + W * H * 5 / 4 + c] & 0xff) - yuv[2]);
                    n += 2;
                }
            }
        }
        return sum / n;
    }

    /** Mean difference in luma of the outline's pixels between two pictures. */
    private static double ringDifference(byte[] a, byte[] b, int at) {
        double sum = 0;
        int n = 0;
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                if (!onRing(x, y)) continue;
                sum += Math.abs((a[at + y * W + x] & 0xff) - (b[at + y * W + x] & 0xff));
                n++;
            }
        }
        return sum / n;
    }

    /** Mean difference in luma away from the box and its label (the band above it), 2 px around them spared. */
    private static double restDifference(byte[] a, byte[] b, int at) {
        double sum = 0;
        int n = 0;
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                boolean nearRing = x >= X0 - 2 && x < X1 + 2 && y >= Y0 - 2 && y < Y1 + 2
                        && !(x >= X0 + T + 2 && x < X1 - T - 2 && y >= Y0 + T + 2 && y < Y1 - T - 2);
                boolean label = x >= X0 - 2 && x < X0 + 100 && y >= Y0 - 14 && y < Y0;
                if (nearRing || label) continue;
                sum += Math.abs((a[at + y * W + x] & 0xff) - (b[at + y * W + x] & 0xff));
                n++;
            }
        }
        return sum / n;
    }

    /** The presentation times of the file's pictures in order, as ffprobe reads them. */
    private static List<Double> ptsOf(Path file) throws Exception {
        List<Double> out = new ArrayList<>();
        for (String line : Media.run(List.of("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                "-of", "csv=p=0", file.toString())).split("\n")) {
            if (!line.isBlank()) out.add(Double.parseDouble(line.trim().replace(",", "")));
        }
        return out;
    }

    /** The file's pictures as raw 4:2:0, decoded by Debian's ffmpeg, one after another. */
    private byte[] yuv(Path file) throws Exception {
        Path raw = dir.resolve(file.getFileName() + ".yuv");
        Media.run(List.of("ffmpeg", "-v", "error", "-y", "-i", file.toString(), "-fps_mode", "passthrough", "-f", "rawvideo",
                "-pix_fmt", "yuv420p", raw.toString()));
        return Files.readAllBytes(raw);
    }
}
