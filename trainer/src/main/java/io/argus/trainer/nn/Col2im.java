package io.argus.trainer.nn;

import java.nio.FloatBuffer;

/**
 * The adjoint of {@link io.argus.detector.cpu.Im2col}: every column entry is added back onto the image pixel it was
 * copied from (taps that fell outside the image are dropped). Adds, so gradients of overlapping windows sum.
 */
final class Col2im {
    private Col2im() {}

    static void addInto(FloatBuffer col, int channels, int height, int width, int ksize, int strideY, int strideX,
                        int pad, int outH, int outW, FloatBuffer im, int imOffset) {
        int outPlane = outH * outW;
        int row = 0;
        for (int c = 0; c < channels; c++) {
            int channelBase = imOffset + c * height * width;
            for (int ky = 0; ky < ksize; ky++) {
                for (int kx = 0; kx < ksize; kx++, row++) {
                    int colBase = row * outPlane;
                    for (int y = 0; y < outH; y++) {
                        int imY = ky + y * strideY - pad;
                        if (imY < 0 || imY >= height) continue;
                        int src = colBase + y * outW;
                        int dst = channelBase + imY * width;
                        if (strideX == 1) {
                            int x0 = Math.max(0, pad - kx);
                            int x1 = Math.min(outW, width + pad - kx);
                            int shift = kx - pad;
                            for (int x = x0; x < x1; x++) {
                                int d = dst + x + shift;
                                im.put(d, im.get(d) + col.get(src + x));
                            }
                        } else {
                            for (int x = 0; x < outW; x++) {
                                int imX = kx + x * strideX - pad;
                                if (imX < 0 || imX >= width) continue;
                                im.put(dst + imX, im.get(dst + imX) + col.get(src + x));
                            }
                        }
                    }
                }
            }
        }
    }
}
