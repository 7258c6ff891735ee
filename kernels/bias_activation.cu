// (b) Bias + activation in one pass over an FP16 NHWC view, in place: the epilogue for convolutions whose
// activation cuDNN could not fuse.
#include "common.cuh"

extern "C" __global__ void bias_activation_vec8(half_t* data, long long image, int pixel, int offset,
                                                const float* bias, int channels, int pixels, int n, int act) {
    int groups = channels >> 3;
    FOR_EACH(t, n * pixels * groups) {
        int g = t % groups;
        int rest = t / groups;
        int p = rest % pixels;
        int b = rest / pixels;
        half_t* ptr = data + at(b, image, p, pixel, offset, g << 3);
        float v[8];
        load8(ptr, v);
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = activate(v[i] + bias[(g << 3) + i], act);
        store8(ptr, v);
    }
}

extern "C" __global__ void bias_activation_scalar(half_t* data, long long image, int pixel, int offset,
                                                  const float* bias, int channels, int pixels, int n, int act) {
    FOR_EACH(t, n * pixels * channels) {
        int c = t % channels;
        int rest = t / channels;
        int p = rest % pixels;
        int b = rest / pixels;
        half_t* ptr = data + at(b, image, p, pixel, offset, c);
        *ptr = f2h(activate(h2f(*ptr) + bias[c], act));
    }
}
