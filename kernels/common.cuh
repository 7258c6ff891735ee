// Shared by every Argus kernel: FP16 storage without cuda_fp16.h (so NVRTC needs no include path), 16-byte
// vectors of 8 halves, and the activations exactly as Darknet defines them.
#pragma once

typedef unsigned short half_t;

// 16 bytes: 8 halves moved in one load or store (own type: NVRTC gets no vector_types.h without include paths).
struct alignas(16) vec16 {
    unsigned int x, y, z, w;
};

// 8 bytes: 4 halves (an image pixel: RGB and a zero).
struct alignas(8) vec8 {
    unsigned int x, y;
};

__device__ __forceinline__ float h2f(half_t h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ half_t f2h(float f) {
    half_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

__device__ __forceinline__ void unpack2(unsigned int u, float* v) {
    v[0] = h2f((half_t) (u & 0xffffu));
    v[1] = h2f((half_t) (u >> 16));
}

__device__ __forceinline__ unsigned int pack2(float a, float b) {
    return (unsigned int) f2h(a) | ((unsigned int) f2h(b) << 16);
}

// 8 consecutive halves (one 16-byte load); p must be 16-byte aligned.
__device__ __forceinline__ void load8(const half_t* p, float* v) {
    vec16 u = *reinterpret_cast<const vec16*>(p);
    unpack2(u.x, v);
    unpack2(u.y, v + 2);
    unpack2(u.z, v + 4);
    unpack2(u.w, v + 6);
}

__device__ __forceinline__ void store4(half_t* p, const float* v) {
    vec8 u;
    u.x = pack2(v[0], v[1]);
    u.y = pack2(v[2], v[3]);
    *reinterpret_cast<vec8*>(p) = u;
}

__device__ __forceinline__ void store8(half_t* p, const float* v) {
    vec16 u;
    u.x = pack2(v[0], v[1]);
    u.y = pack2(v[2], v[3]);
    u.z = pack2(v[4], v[5]);
    u.w = pack2(v[6], v[7]);
    *reinterpret_cast<vec16*>(p) = u;
}

// An image pixel of 4 or 8 halves (v: 8 values, those past 3 zero).
__device__ __forceinline__ void store_pixel(half_t* p, const float* v, int pixelStride) {
    if (pixelStride == 4) store4(p, v);
    else store8(p, v);
}

// Activation codes: the Java side (io.argus.detector.cuda.layers.KernelCodes) passes these.
#define ACT_LINEAR 0
#define ACT_LEAKY 1
#define ACT_RELU 2
#define ACT_LOGISTIC 3
#define ACT_MISH 4
#define ACT_SWISH 5

__device__ __forceinline__ float logistic(float x) { return 1.f / (1.f + expf(-x)); }

// Darknet's softplus inside mish: linear / exponential tails beyond 20.
__device__ __forceinline__ float softplus_darknet(float x) {
    if (x > 20.f) return x;
    if (x < -20.f) return expf(x);
    return log1pf(expf(x));
}

__device__ __forceinline__ float activate(float x, int act) {
    switch (act) {
        case ACT_LEAKY: return x > 0.f ? x : 0.1f * x;
        case ACT_RELU: return x > 0.f ? x : 0.f;
        case ACT_LOGISTIC: return logistic(x);
        case ACT_MISH: return x * tanhf(softplus_darknet(x));
        case ACT_SWISH: return x * logistic(x);
        default: return x;
    }
}

// -infinity without math.h (NVRTC has no INFINITY macro).
#define NEG_INF __int_as_float(0xff800000)

// A grid-stride loop over [0, total).
#define FOR_EACH(i, total) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (total); i += gridDim.x * blockDim.x)

// Element offset of (image b, pixel p, channel c) in an NHWC view: imageStride elements per image, pixelStride
// per pixel, the view's channels starting at channelOffset.
__device__ __forceinline__ long long at(int b, long long imageStride, int p, int pixelStride, int channelOffset,
                                        int c) {
    return b * imageStride + (long long) p * pixelStride + channelOffset + c;
}
