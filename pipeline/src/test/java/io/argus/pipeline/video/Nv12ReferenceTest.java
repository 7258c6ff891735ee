package io.argus.pipeline.video;

import static org.bytedeco.ffmpeg.global.swscale.SWS_ACCURATE_RND;
import static org.bytedeco.ffmpeg.global.swscale.SWS_FULL_CHR_H_INT;
import static org.bytedeco.ffmpeg.global.swscale.SWS_POINT;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.post.Preprocess;
import io.argus.detector.yuv.Nv12Image;
import io.argus.detector.yuv.YuvColour;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The NV12 CPU reference ({@link Nv12Image#toBgr}, which kernels/nv12.cu equals exactly) against FFmpeg's swscale,
 * the converter behind the CPU decode path: same bytes within swscale's own rounding, for even and odd sizes,
 * padded pitches, both matrices and both ranges; and after Darknet's letterbox the network inputs agree as closely.
 */
@Budget(seconds = 10)
class Nv12ReferenceTest {
    /** Largest per-channel byte difference allowed from swscale (its tables round differently from our 16-bit fixed point). */
    static final int BYTE_TOLERANCE = 1;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        int[][] sizes = {{64, 48, 0}, {33, 17, 7}, {101, 75, 27}, {640, 360, 128}, {1, 1, 3}, {2, 3, 0}};
        for (int[] s : sizes) {
            for (YuvColour.Matrix m : YuvColour.Matrix.values()) {
                for (YuvColour.Range r : YuvColour.Range.values()) {
                    all.add(Arguments.of(s[0], s[1], s[2], new YuvColour(m, r)));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}x{1} pad {2} {3}")
    @MethodSource("cases")
    void matchesSwscale(int width, int height, int pad, YuvColour colour) {
        // An odd-sized picture is the top-left of the even one around it (same planes, same pitches): swscale gets the
        // even picture, because for odd sizes it stretches the chroma plane to the luma size (chroma column
        // x * ceil(w/2) / w) where 4:2:0 means column x / 2, which is what NVDEC's planes and the CPU decode path's
        // unscaled yuv420p converter use. So odd sizes test our last, half-used chroma pair and the crop.
        int evenW = (width + 1) & ~1;
        int evenH = (height + 1) & ~1;
        Nv12Image even = Nv12Pictures.picture(evenW, evenH, pad, 31L * width + height, colour.range());
        Nv12Image im = new Nv12Image(width, height, even.lumaPitch(), even.chromaPitch(), even.luma(), even.chroma());
        BgrImage ours = im.toBgr(colour);
        // nearest chroma (SWS_POINT, SWS_FULL_CHR_H_INT), exact rounding (SWS_ACCURATE_RND): the same conversion as
        // ours, so only the coefficients' rounding differs
        BgrImage theirs = crop(Nv12Pictures.swscale(even, colour, SWS_POINT | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT),
                width, height);
        int worst = 0;
        long sum = 0;
        String where = "";
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < 3; c++) {
                    int d = Math.abs(ours.at(x, y, c) - theirs.at(x, y, c));
                    sum += d;
                    if (d > worst) {
                        worst = d;
                        where = "(" + x + "," + y + ") channel " + c + ": ours " + ours.at(x, y, c) + ", swscale "
                                + theirs.at(x, y, c);
                    }
                }
            }
        }
        double mean = (double) sum / (3.0 * width * height);
        System.out.printf("%dx%d pad %d %s: max byte difference %d, mean %.3f %s%n", width, height, pad, colour, worst,
                mean, where);
        assertTrue(worst <= BYTE_TOLERANCE, "max byte difference " + worst + " at " + where);
        assertTrue(mean <= 0.05, "mean byte difference " + mean);

        // the network input (yolo-sized, letterboxed) from both: within the same tolerance after /255
        int netW = 416;
        int netH = 256;
        FloatBuffer a = FloatBuffer.allocate(3 * netW * netH);
        FloatBuffer b = FloatBuffer.allocate(3 * netW * netH);
        new Preprocess().write(ours, netW, netH, true, a, 0);
        new Preprocess().write(theirs, netW, netH, true, b, 0);
        float maxIn = 0;
        for (int i = 0; i < a.capacity(); i++) maxIn = Math.max(maxIn, Math.abs(a.get(i) - b.get(i)));
        assertTrue(maxIn <= BYTE_TOLERANCE / 255f + 1e-6f, "network input differs by " + maxIn);
    }

    private static BgrImage crop(BgrImage im, int width, int height) {
        byte[] out = new byte[3 * width * height];
        for (int y = 0; y < height; y++) im.pixels().get(y * im.stride(), out, 3 * y * width, 3 * width);
        return BgrImage.of(width, height, out);
    }
}
