package io.argus.detector.cpu;

import java.nio.FloatBuffer;

/**
 * Darknet's im2col_cpu: unrolls each (channel, ky, kx) into one row of out_h x out_w values so a convolution becomes
 * one matrix product. Out-of-image taps are zero.
 */
public final class Im2col {
    private Im2col() {}

    public static void forward(FloatBuffer im, int imOffset, int channels, int height, int width, int ksize, int strideY,
                        int strideX, int pad, int outH, int outW, FloatBuffer col) {
        int outPlane = outH * outW;
        int row = 0;
        for (int c = 0; c < channels; c++) {
            int channelBase = imOffset + c * height * width;
            for (int ky = 0; ky < ksize; ky++) {
                for (int kx = 0; kx < ksize; kx++, row++) {
                    int colBase = row * outPlane;
                    for (int y = 0; y < outH; y++) {
                        int imY = ky + y * strideY - pad;
                        int dst = colBase + y * outW;
                        if (imY < 0 || imY >= height) {
                            for (int x = 0; x < outW; x++) col.put(dst + x, 0f);
                            continue;
                        }
                        int src = channelBase + imY * width;
                        if (strideX == 1) {
                            // valid x range: 0 <= kx + x - pad < width
                            int x0 = Math.max(0, pad - kx);
                            int x1 = Math.min(outW, width + pad - kx);
                            for (int x = 0; x < x0; x++) col.put(dst + x, 0f);
                            if (x1 > x0) col.put(dst + x0, im, src + kx + x0 - pad, x1 - x0);
                            for (int x = Math.max(x1, x0); x < outW; x++) col.put(dst + x, 0f);
                        } else {
                            for (int x = 0; x < outW; x++) {
                                int imX = kx + x * strideX - pad;
                                col.put(dst + x, imX >= 0 && imX < width ? im.get(src + imX) : 0f);
                            }
                        }
                    }
                }
            }
        }
    }
}
