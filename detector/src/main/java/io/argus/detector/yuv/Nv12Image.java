package io.argus.detector.yuv;

import io.argus.detector.BgrImage;
import java.nio.ByteBuffer;

/**
 * An NV12 picture in host memory: a luma plane ({@code lumaPitch} bytes a row) and a half-resolution plane of
 * interleaved U, V pairs ({@code chromaPitch} bytes a row, ceil(width / 2) pairs by ceil(height / 2) rows), as NVDEC
 * writes it. This is the CPU reference of kernels/nv12.cu: {@link #toBgr} then {@code post.Preprocess} gives what
 * the kernel writes into the batch tensor (after FP16 rounding), and it is what the tests hold the kernel to.
 */
public record Nv12Image(int width, int height, int lumaPitch, int chromaPitch, ByteBuffer luma, ByteBuffer chroma) {

    public Nv12Image {
        if (width < 1 || height < 1) throw new IllegalArgumentException("NV12 image of " + width + "x" + height);
        if (lumaPitch < width) throw new IllegalArgumentException("luma pitch " + lumaPitch + " < width " + width);
        if (chromaPitch < 2 * chromaWidth(width)) {
            throw new IllegalArgumentException("chroma pitch " + chromaPitch + " < " + 2 * chromaWidth(width));
        }
        if (luma.capacity() < (long) lumaPitch * (height - 1) + width) throw new IllegalArgumentException("luma plane too small");
        if (chroma.capacity() < (long) chromaPitch * (chromaHeight(height) - 1) + 2L * chromaWidth(width)) {
            throw new IllegalArgumentException("chroma plane too small");
        }
    }

    /** U, V pairs per chroma row: the luma width halved, rounded up (an odd last column has its own pair). */
    public static int chromaWidth(int width) { return (width + 1) / 2; }

    public static int chromaHeight(int height) { return (height + 1) / 2; }

    /**
     * Packed BGR bytes (stride 3 x width), each pixel converted with {@code colour}'s fixed-point coefficients and
     * the chroma pair at (x / 2, y / 2), exactly as kernels/nv12.cu does.
     */
    public BgrImage toBgr(YuvColour colour) {
        int[] k = colour.coefficients();
        int yScale = k[0], yOffset = k[1], rV = k[2], gU = k[3], gV = k[4], bU = k[5];
        int round = 1 << (YuvColour.SHIFT - 1);
        byte[] out = new byte[3 * width * height];
        for (int row = 0; row < height; row++) {
            int lumaRow = row * lumaPitch;
            int chromaRow = (row >> 1) * chromaPitch;
            for (int col = 0; col < width; col++) {
                int y = (luma.get(lumaRow + col) & 0xff) - yOffset;
                int uv = chromaRow + 2 * (col >> 1);
                int u = (chroma.get(uv) & 0xff) - 128;
                int v = (chroma.get(uv + 1) & 0xff) - 128;
                int ys = yScale * y + round;
                int o = 3 * (row * width + col);
                out[o] = clampByte((ys + bU * u) >> YuvColour.SHIFT);
                out[o + 1] = clampByte((ys + gU * u + gV * v) >> YuvColour.SHIFT);
                out[o + 2] = clampByte((ys + rV * v) >> YuvColour.SHIFT);
            }
        }
        return BgrImage.of(width, height, out);
    }

    private static byte clampByte(int v) {
        return (byte) (v < 0 ? 0 : Math.min(v, 255));
    }
}
