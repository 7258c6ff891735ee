// (e) [shortcut]: out = activation(a + b) on FP16 NHWC views, for the shortcuts cuDNN did not fuse into the
// convolution before them.
#include "common.cuh"

extern "C" __global__ void shortcut_vec8(const half_t* a, long long aImage, int aPixel, int aOffset,
                                         const half_t* bsrc, long long bImage, int bPixel, int bOffset,
                                         half_t* out, long long outImage, int outPixel, int outOffset,
                                         int channels, int pixels, int n, int act) {
    int groups = channels >> 3;
    FOR_EACH(t, n * pixels * groups) {
        int g = t % groups;
        int rest = t / groups;
        int p = rest % pixels;
        int b = rest / pixels;
        float x[8], y[8];
        load8(a + at(b, aImage, p, aPixel, aOffset, g << 3), x);
        load8(bsrc + at(b, bImage, p, bPixel, bOffset, g << 3), y);
#pragma unroll
        for (int i = 0; i < 8; i++) x[i] = activate(x[i] + y[i], act);
        store8(out + at(b, outImage, p, outPixel, outOffset, g << 3), x);
    }
}

extern "C" __global__ void shortcut_scalar(const half_t* a, long long aImage, int aPixel, int aOffset,
                                           const half_t* bsrc, long long bImage, int bPixel, int bOffset,
                                           half_t* out, long long outImage, int outPixel, int outOffset,
                                           int channels, int pixels, int n, int act) {
    FOR_EACH(t, n * pixels * channels) {
        int c = t % channels;
        int rest = t / channels;
        int p = rest % pixels;
        int b = rest / pixels;
        float v = h2f(a[at(b, aImage, p, aPixel, aOffset, c)]) + h2f(bsrc[at(b, bImage, p, bPixel, bOffset, c)]);
        out[at(b, outImage, p, outPixel, outOffset, c)] = f2h(activate(v, act));
    }
}
