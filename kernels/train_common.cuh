// Shared by the kernels templated over the storage type: the layer kernels both networks run (convolutional.cu,
// maxpool.cu, upsample.cu, route.cu, shortcut.cu, yolo.cu) and the training ones (train_*.cu);
// io.argus.gpu.KernelLibrary inlines this header. Tensors are NHWC, stored as T: half_t (inference, mixed precision) or float (FP32). Each
// kernel is a template over T with two extern "C" instances, NAME_h and NAME_f (see INSTANTIATE below). A tensor
// that owns its pixels has its channels padded to a multiple of 8 ("stride") and the padding always holds 0: every
// kernel that writes a whole pixel writes zeros there.
#pragma once
#include "common.cuh"

__device__ __forceinline__ float ld(const half_t* p) { return h2f(*p); }
__device__ __forceinline__ float ld(const float* p) { return *p; }
__device__ __forceinline__ void st(half_t* p, float v) { *p = f2h(v); }
__device__ __forceinline__ void st(float* p, float v) { *p = v; }

// 8 consecutive values: one 16-byte access for halves, two for floats. p must be 16-byte aligned.
__device__ __forceinline__ void ld8(const half_t* p, float* v) { load8(p, v); }
__device__ __forceinline__ void st8(half_t* p, const float* v) { store8(p, v); }

__device__ __forceinline__ void ld8(const float* p, float* v) {
    vec16 a = reinterpret_cast<const vec16*>(p)[0];
    vec16 b = reinterpret_cast<const vec16*>(p)[1];
    v[0] = __uint_as_float(a.x); v[1] = __uint_as_float(a.y); v[2] = __uint_as_float(a.z); v[3] = __uint_as_float(a.w);
    v[4] = __uint_as_float(b.x); v[5] = __uint_as_float(b.y); v[6] = __uint_as_float(b.z); v[7] = __uint_as_float(b.w);
}

__device__ __forceinline__ void st8(float* p, const float* v) {
    vec16 a, b;
    a.x = __float_as_uint(v[0]); a.y = __float_as_uint(v[1]); a.z = __float_as_uint(v[2]); a.w = __float_as_uint(v[3]);
    b.x = __float_as_uint(v[4]); b.y = __float_as_uint(v[5]); b.z = __float_as_uint(v[6]); b.w = __float_as_uint(v[7]);
    reinterpret_cast<vec16*>(p)[0] = a;
    reinterpret_cast<vec16*>(p)[1] = b;
}

// Finite (neither Inf nor NaN), by the exponent bits (no math.h under NVRTC).
__device__ __forceinline__ bool finite(float v) { return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u; }

// d activation / d a at the pre-activation a, exactly as io.argus.detector.darknet.Activation.derivative.
__device__ __forceinline__ float activate_grad(float a, int act) {
    switch (act) {
        case ACT_LEAKY: return a > 0.f ? 1.f : 0.1f;
        case ACT_RELU: return a > 0.f ? 1.f : 0.f;
        case ACT_LOGISTIC: {
            float s = logistic(a);
            return s * (1.f - s);
        }
        case ACT_MISH: {
            float t = tanhf(softplus_darknet(a));
            return t + a * (1.f - t * t) * logistic(a);
        }
        case ACT_SWISH: {
            float s = logistic(a);
            return s + a * s * (1.f - s);
        }
        default: return 1.f;
    }
}

// A grid-stride loop over [0, total) with 64-bit indices (training tensors exceed 2^31 elements at large batches).
#define FOR_EACH_LONG(i, total) \
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < (total); \
         i += (long long) gridDim.x * blockDim.x)

// An NHWC view's four kernel arguments (io.argus.gpu.KernelLaunch.view passes them): data, then image stride,
// pixel stride and channel offset in elements. Element of (image b, pixel p, channel c), in 64 bits: a batch of
// 64 large maps exceeds 2^31 elements.
#define VIEW_PARAMS(T, v) T* v, long long v##Image, int v##Pixel, int v##Offset
__device__ __forceinline__ long long vat(long long b, long long imageStride, int p, int pixelStride, int offset,
                                         int c) {
    return b * imageStride + (long long) p * pixelStride + offset + c;
}

// Block-wide sum of one float per thread (blockDim.x a power of two, at most 1024); the result is valid in thread 0.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    float r = scratch[0];
    __syncthreads();
    return r;
}

// Two extern "C" instances of a kernel template: NAME_h over halves, NAME_f over floats. PARAMS is a function-like
// macro giving the parameter list for a storage type, ARGS the argument names in parentheses:
//   #define SCALE_PARAMS(T) (const T* x, T* y, int n)
//   template <typename T> __device__ void scale SCALE_PARAMS(T) { ... }
//   INSTANTIATE(scale, SCALE_PARAMS, (x, y, n))
#define INSTANTIATE(NAME, PARAMS, ARGS)                                         \
    extern "C" __global__ void NAME##_h PARAMS(half_t) { NAME<half_t> ARGS; }   \
    extern "C" __global__ void NAME##_f PARAMS(float) { NAME<float> ARGS; }

// Per-channel reductions over NHWC tensors: a block adds each thread's 8-channel partial sums into shared memory,
// then writes one row of S floats per quantity to partial[(block * 2 + q) * S + c]; a finalize kernel sums the rows
// of all blocks in double. No global atomics; the shared-memory ones add in the order threads arrive, so a sum's
// last bits can differ from run to run (measured: scripts/gpu/bn_kernels_bench.py).
#define MAX_STRIDE 2048

// The (pixel, group) lanes of a reduction: lane t < lanes handles group t % G at pixels t / G, t / G + step, ...
struct Lanes {
    long long first, step;
    int group;
    bool active;
};

__device__ __forceinline__ Lanes reduction_lanes(int groups) {
    long long threads = (long long) gridDim.x * blockDim.x;
    long long lanes = threads / groups * groups;
    long long t = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    Lanes l;
    l.active = t < lanes;
    l.group = (int) (t % groups);
    l.first = t / groups;
    l.step = lanes / groups;
    return l;
}

__device__ __forceinline__ void clear_channels(float* a, float* b, int stride) {
    for (int c = threadIdx.x; c < stride; c += blockDim.x) {
        a[c] = 0.f;
        b[c] = 0.f;
    }
    __syncthreads();
}

__device__ __forceinline__ void write_partials(const float* a, const float* b, int stride, float* partial) {
    __syncthreads();
    for (int c = threadIdx.x; c < stride; c += blockDim.x) {
        partial[(blockIdx.x * 2LL) * stride + c] = a[c];
        partial[(blockIdx.x * 2LL + 1) * stride + c] = b[c];
    }
}

// Finalize kernels run one block of 256 threads per 8 channels: 32 row lanes x 8 channels sum the rows of all
// blocks in double, in parallel, then threads 0..7 each own channel c0 + threadIdx.x. sums[q][i] holds quantity q of
// channel c0 + i afterwards (valid for all threads after the call).
__device__ __forceinline__ void sum_rows8(const float* partial, int blocks, int stride, double (*sums)[8]) {
    __shared__ double lanes[2][32][8];
    int ch = threadIdx.x & 7, lane = threadIdx.x >> 3;
    int c = blockIdx.x * 8 + ch;
    double a = 0.0, b = 0.0;
    for (int k = lane; k < blocks; k += 32) {
        a += partial[(k * 2LL) * stride + c];
        b += partial[(k * 2LL + 1) * stride + c];
    }
    lanes[0][lane][ch] = a;
    lanes[1][lane][ch] = b;
    __syncthreads();
    if (threadIdx.x < 16) {
        int q = threadIdx.x >> 3, i = threadIdx.x & 7;
        double s = 0.0;
        for (int l = 0; l < 32; l++) s += lanes[q][l][i];
        sums[q][i] = s;
    }
    __syncthreads();
}
