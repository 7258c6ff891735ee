// FP8 E4M3 inputs for cuDNN's FP8 convolutions (Hopper and later tensor cores): an FP16 NHWC view, read 16 channels
// at a time, divided by the tensor's calibrated scale (multiplied by its inverse) and rounded to the nearest E4M3,
// saturating at +-448 as a quantizer must (a value past the calibrated range becomes the largest, not NaN), into a
// dense [n][pixels][channels] byte tensor. io.argus.gpu.Fp8 is the host's encoder; the two agree bit for bit.
#include "common.cuh"

// Two floats as E4M3 bits, hi in the upper byte (PTX's cvt packs its first source there). Compiled for any
// architecture, run only on 8.9 and later (the Java side checks the device before it launches this).
__device__ __forceinline__ unsigned int e4m3x2(float hi, float lo) {
#if __CUDA_ARCH__ >= 890
    unsigned short d;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(hi), "f"(lo));
    return d;
#else
    __trap();
    return 0;
#endif
}

// Eight floats as eight E4M3 bytes, in order (little-endian words: the first value in the lowest byte).
__device__ __forceinline__ void e4m3x8(const float* v, unsigned int* lo, unsigned int* hi) {
    *lo = e4m3x2(v[1], v[0]) | (e4m3x2(v[3], v[2]) << 16);
    *hi = e4m3x2(v[5], v[4]) | (e4m3x2(v[7], v[6]) << 16);
}

// channels: a multiple of 16, the view's offset and pixel stride multiples of 8 (16-byte loads).
extern "C" __global__ void quantize_fp8(const half_t* x, long long image, int pixel, int offset, int channels,
                                        int pixels, int n, float inverse, unsigned char* out) {
    int groups = channels >> 4;
    FOR_EACH(t, n * pixels * groups) {
        int g = t % groups;
        int rest = t / groups;
        int p = rest % pixels;
        int b = rest / pixels;
        const half_t* in = x + at(b, image, p, pixel, offset, g << 4);
        float v[16];
        load8(in, v);
        load8(in + 8, v + 8);
#pragma unroll
        for (int i = 0; i < 16; i++) v[i] *= inverse;
        vec16 q;
        e4m3x8(v, &q.x, &q.y);
        e4m3x8(v + 8, &q.z, &q.w);
        *reinterpret_cast<vec16*>(out + ((long long) b * pixels + p) * channels + (g << 4)) = q;
    }
}
