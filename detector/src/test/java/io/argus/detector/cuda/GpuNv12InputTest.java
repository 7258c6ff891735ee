package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.post.InputGeometry;
import io.argus.detector.post.Preprocess;
import io.argus.detector.yuv.Nv12Image;
import io.argus.detector.yuv.YuvColour;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kernels/nv12.cu against its CPU reference (Nv12Image.toBgr, then Darknet's resize/letterbox in post.Preprocess):
 * after FP16 rounding the batch slot must be identical (the colour step is the same integer arithmetic, the resize
 * the same pinned float arithmetic), for even and odd sizes, padded pitches, both matrices and ranges, plain and
 * letterboxed, into a slot other than 0, and into a strided view (channels at an offset inside wider pixels).
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuNv12InputTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        int[][] sizes = {{64, 48, 0}, {33, 17, 7}, {101, 75, 27}, {1280, 720, 256}, {719, 481, 65}, {1, 1, 0}};
        for (int[] s : sizes) {
            for (YuvColour.Matrix m : YuvColour.Matrix.values()) {
                for (YuvColour.Range r : YuvColour.Range.values()) {
                    all.add(Arguments.of(s[0], s[1], s[2], new YuvColour(m, r), s[0] % 2 == 1));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}x{1} pad {2} {3} letterbox {4}")
    @MethodSource("cases")
    void equalsReference(int width, int height, int pad, YuvColour colour, boolean letterbox) {
        Nv12Image im = picture(width, height, pad, 7L * width + height);
        int netW = 416;
        int netH = 320;
        DeviceContext ctx = DeviceContext.of(0);
        int planeBytes = im.luma().capacity();
        int chromaBytes = im.chroma().capacity();
        int slots = 2;
        short loud = Float.floatToFloat16(42f);   // what the buffer held before: kept, or zeroed as padding
        // the network input's 4- and 8-channel pixels; 3 channels at offset 8 of 16-channel pixels (a strided view)
        for (int pixelStride : new int[] {4, 8, 16}) {
            boolean strided = pixelStride == 16;
            int offset = strided ? 8 : 0;
            long imageStride = (long) pixelStride * netW * netH;
            try (GpuStream stream = new GpuStream();
                 GpuBuffer luma = GpuBuffer.device(planeBytes, "test luma");
                 GpuBuffer chroma = GpuBuffer.device(chromaBytes, "test chroma");
                 GpuBuffer out = GpuBuffer.device(2 * imageStride * slots, "test input")) {
                Transfers.upload(luma.address(), bytes(im.luma()));
                Transfers.upload(chroma.address(), bytes(im.chroma()));
                short[] before = new short[(int) (imageStride * slots)];
                Arrays.fill(before, loud);
                Transfers.upload(out.address(), before);
                TensorView view = new TensorView(out.address(), imageStride, pixelStride, offset, 3, netH, netW);
                Nv12Input input = new Nv12Input(ctx, view, letterbox);
                Nv12Surface surface = new Nv12Surface(luma.address(), chroma.address(), im.lumaPitch(), im.chromaPitch(),
                        width, height, colour);
                InputGeometry g = input.stage(surface, 1, stream);
                stream.synchronize();
                assertEquals(InputGeometry.of(netW, netH, width, height, letterbox), g);
                short[] got = Transfers.downloadHalves(out.address(), imageStride * slots);

                FloatBuffer expected = FloatBuffer.allocate(3 * netW * netH);
                new Preprocess().write(im.toBgr(colour), netW, netH, letterbox, expected, 0);
                int plane = netW * netH;
                int mismatches = 0, wrongOthers = 0;
                String first = null, firstOther = null;
                for (int p = 0; p < plane; p++) {
                    for (int c = 0; c < 3; c++) {
                        float want = Float.float16ToFloat(Float.floatToFloat16(expected.get(c * plane + p)));
                        float have = Float.float16ToFloat(got[(int) (imageStride + (long) p * pixelStride + offset + c)]);
                        if (want != have && mismatches++ == 0) {
                            first = "pixel " + p + " channel " + c + ": reference " + want + ", kernel " + have;
                        }
                    }
                    for (int c = 0; c < pixelStride; c++) {
                        if (got[p * pixelStride + c] != loud && wrongOthers++ == 0) {
                            firstOther = "slot 0 written at pixel " + p + " channel " + c;
                        }
                        if (c >= offset && c < offset + 3) continue;
                        // a packed pixel's padding channels are zeroed (layer 0 multiplies them by zero weights: a
                        // NaN left there would spread); a strided view's other channels are not the kernel's
                        short other = got[(int) (imageStride + (long) p * pixelStride + c)];
                        if (other != (strided ? loud : 0) && wrongOthers++ == 0) {
                            firstOther = "slot 1 pixel " + p + " channel " + c + " holds " + other;
                        }
                    }
                }
                assertEquals(0, mismatches, pixelStride + "-channel view: " + mismatches
                        + " values differ from the reference, first " + first);
                assertEquals(0, wrongOthers, pixelStride + "-channel view: " + wrongOthers
                        + " halves outside the slot's three channels wrong, first " + firstOther);
            }
        }
    }

    /** Smooth colour fields plus noise over the whole byte range, row padding filled with a loud value. */
    static Nv12Image picture(int width, int height, int pad, long seed) {
        Random random = new Random(seed);
        int lumaPitch = width + pad;
        int chromaPitch = 2 * Nv12Image.chromaWidth(width) + pad;
        int chromaRows = Nv12Image.chromaHeight(height);
        ByteBuffer luma = ByteBuffer.allocate(lumaPitch * height);
        ByteBuffer chroma = ByteBuffer.allocate(chromaPitch * chromaRows);
        for (int i = 0; i < luma.capacity(); i++) luma.put(i, (byte) 0xEE);
        for (int i = 0; i < chroma.capacity(); i++) chroma.put(i, (byte) 0x11);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int v = (int) (255.0 * (x + y) / (width + height)) + random.nextInt(41) - 20;
                luma.put(y * lumaPitch + x, (byte) Math.max(0, Math.min(255, v)));
            }
        }
        for (int y = 0; y < chromaRows; y++) {
            for (int x = 0; x < Nv12Image.chromaWidth(width); x++) {
                chroma.put(y * chromaPitch + 2 * x, (byte) (128 + (int) (120 * Math.sin(0.21 * x + 0.05 * y))));
                chroma.put(y * chromaPitch + 2 * x + 1, (byte) (128 + (int) (120 * Math.cos(0.13 * y - 0.07 * x))));
            }
        }
        return new Nv12Image(width, height, lumaPitch, chromaPitch, luma, chroma);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.capacity()];
        b.get(0, a);
        return a;
    }
}
