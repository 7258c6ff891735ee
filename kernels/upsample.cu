// (c) [upsample]: nearest neighbour by an integer stride, times scale, on FP16 NHWC views. Stride 2 is the common
// case: one thread reads 8 channels of an input pixel once and writes them to its 2x2 output block.
#include "common.cuh"

extern "C" __global__ void upsample2x_vec8(const half_t* in, long long inImage, int inPixel, int inOffset,
                                           half_t* out, long long outImage, int outPixel, int outOffset,
                                           int channels, int h, int w, float scale, int n) {
    int groups = channels >> 3;
    int ow = w << 1;
    FOR_EACH(t, n * h * w * groups) {
        int g = t % groups;
        int rest = t / groups;
        int p = rest % (h * w);
        int b = rest / (h * w);
        int y = p / w, x = p % w;
        float v[8];
        load8(in + at(b, inImage, p, inPixel, inOffset, g << 3), v);
        if (scale != 1.f) {
#pragma unroll
            for (int i = 0; i < 8; i++) v[i] *= scale;
        }
        int o = (y << 1) * ow + (x << 1);
        store8(out + at(b, outImage, o, outPixel, outOffset, g << 3), v);
        store8(out + at(b, outImage, o + 1, outPixel, outOffset, g << 3), v);
        store8(out + at(b, outImage, o + ow, outPixel, outOffset, g << 3), v);
        store8(out + at(b, outImage, o + ow + 1, outPixel, outOffset, g << 3), v);
    }
}

extern "C" __global__ void upsample_vec8(const half_t* in, long long inImage, int inPixel, int inOffset,
                                         half_t* out, long long outImage, int outPixel, int outOffset,
                                         int channels, int h, int w, int stride, float scale, int n) {
    int groups = channels >> 3;
    int oh = h * stride, ow = w * stride;
    FOR_EACH(t, n * oh * ow * groups) {
        int g = t % groups;
        int rest = t / groups;
        int op = rest % (oh * ow);
        int b = rest / (oh * ow);
        int y = (op / ow) / stride, x = (op % ow) / stride;
        float v[8];
        load8(in + at(b, inImage, y * w + x, inPixel, inOffset, g << 3), v);
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] *= scale;
        store8(out + at(b, outImage, op, outPixel, outOffset, g << 3), v);
    }
}

extern "C" __global__ void upsample_scalar(const half_t* in, long long inImage, int inPixel, int inOffset,
                                           half_t* out, long long outImage, int outPixel, int outOffset,
                                           int channels, int h, int w, int stride, float scale, int n) {
    int oh = h * stride, ow = w * stride;
    FOR_EACH(t, n * oh * ow * channels) {
        int c = t % channels;
        int rest = t / channels;
        int op = rest % (oh * ow);
        int b = rest / (oh * ow);
        int y = (op / ow) / stride, x = (op % ow) / stride;
        float v = h2f(in[at(b, inImage, y * w + x, inPixel, inOffset, c)]);
        out[at(b, outImage, op, outPixel, outOffset, c)] = f2h(scale * v);
    }
}
