// [maxpool] on FP16 NHWC views with Darknet's window placement: the window starts at out * stride + offset
// (offset = -padding / 2) and taps outside the image are ignored.
#include "common.cuh"

extern "C" __global__ void maxpool_vec8(const half_t* in, long long inImage, int inPixel, int inOffset,
                                        half_t* out, long long outImage, int outPixel, int outOffset,
                                        int channels, int h, int w, int oh, int ow, int size, int strideY,
                                        int strideX, int offset, int n) {
    int groups = channels >> 3;
    FOR_EACH(t, n * oh * ow * groups) {
        int g = t % groups;
        int rest = t / groups;
        int op = rest % (oh * ow);
        int b = rest / (oh * ow);
        int oy = op / ow, ox = op % ow;
        int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
        int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
        float m[8];
#pragma unroll
        for (int i = 0; i < 8; i++) m[i] = NEG_INF;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                float v[8];
                load8(in + at(b, inImage, y * w + x, inPixel, inOffset, g << 3), v);
#pragma unroll
                for (int i = 0; i < 8; i++) m[i] = fmaxf(m[i], v[i]);
            }
        }
        store8(out + at(b, outImage, op, outPixel, outOffset, g << 3), m);
    }
}

extern "C" __global__ void maxpool_scalar(const half_t* in, long long inImage, int inPixel, int inOffset,
                                          half_t* out, long long outImage, int outPixel, int outOffset,
                                          int channels, int h, int w, int oh, int ow, int size, int strideY,
                                          int strideX, int offset, int n) {
    FOR_EACH(t, n * oh * ow * channels) {
        int c = t % channels;
        int rest = t / channels;
        int op = rest % (oh * ow);
        int b = rest / (oh * ow);
        int oy = op / ow, ox = op % ow;
        int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
        int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
        float m = NEG_INF;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) m = fmaxf(m, h2f(in[at(b, inImage, y * w + x, inPixel, inOffset, c)]));
        }
        out[at(b, outImage, op, outPixel, outOffset, c)] = f2h(m);
    }
}
