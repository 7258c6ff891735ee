// The optimizer side of mixed-precision training, over the parameter arena: every trainable tensor of every layer
// lives in one FP32 arena (convolution weights first, [0, W), then biases and batch-norm scales, [W, total)), with
// the same offsets in the gradient, momentum and EMA arenas and, for [0, W), in the per-pass weight gradient that
// cuDNN writes (T) and in the working copy the convolutions read (T). So one launch covers every tensor.
#include "train_common.cuh"

// After each backward: grad += the pass's weight gradient, and one flag for any gradient that is Inf or NaN.
#define ACCUMULATE_CHECK_PARAMS(T) (const T* pass, float* grad, long long W, long long total, int* overflow)

template <typename T>
__device__ void accumulate_check ACCUMULATE_CHECK_PARAMS(T) {
    int bad = 0;
    FOR_EACH_LONG(i, total) {
        float g = grad[i];
        if (i < W) {
            g += ld(pass + i);
            grad[i] = g;
        }
        if (!finite(g)) bad = 1;
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(overflow, 1);
}
INSTANTIATE(accumulate_check, ACCUMULATE_CHECK_PARAMS, (pass, grad, W, total, overflow))

// Darknet's update (io.argus.trainer.optim.Sgd), float operation by float operation as Java evaluates it (no fused
// multiply-adds, so the result equals the CPU's bit for bit): v = momentum v - (g unscale + decay w), decay on
// [0, W) only; dw = rate v; w += dw; g = 0. Then the working copy of [0, W) (when given) and the EMA (mode 1: start
// from w; mode 2: alpha shadow + (1 - alpha) w). largestBits receives the largest |dw| (as float bits).
#define SGD_PARAMS(T) (float* master, float* velocity, float* grad, T* working, float* shadow, long long W, \
                       long long total, float unscale, float rate, float momentum, float decay, int emaMode, \
                       float alpha, float oneMinusAlpha, unsigned int* largestBits)

template <typename T>
__device__ void sgd_step SGD_PARAMS(T) {
    __shared__ float sMax[256];
    float largest = 0.f;
    FOR_EACH_LONG(i, total) {
        float w = master[i];
        float d = i < W ? decay : 0.f;
        float v = __fsub_rn(__fmul_rn(momentum, velocity[i]), __fadd_rn(__fmul_rn(grad[i], unscale), __fmul_rn(d, w)));
        float dw = __fmul_rn(rate, v);
        w = __fadd_rn(w, dw);
        master[i] = w;
        velocity[i] = v;
        grad[i] = 0.f;
        if (working != nullptr && i < W) st(working + i, w);
        if (emaMode == 1) shadow[i] = w;
        else if (emaMode == 2) shadow[i] = __fadd_rn(__fmul_rn(alpha, shadow[i]), __fmul_rn(oneMinusAlpha, w));
        largest = fmaxf(largest, fabsf(dw));
    }
    sMax[threadIdx.x] = largest;
    __syncthreads();
    for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (threadIdx.x < s) sMax[threadIdx.x] = fmaxf(sMax[threadIdx.x], sMax[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicMax(largestBits, __float_as_uint(sMax[0]));
}
INSTANTIATE(sgd_step, SGD_PARAMS, (master, velocity, grad, working, shadow, W, total, unscale, rate, momentum, decay,
                                   emaMode, alpha, oneMinusAlpha, largestBits))

// The working copy from the masters alone (at start and after weights are loaded).
#define REFRESH_PARAMS(T) (const float* master, T* working, long long W)

template <typename T>
__device__ void refresh_working REFRESH_PARAMS(T) {
    FOR_EACH_LONG(i, W) st(working + i, master[i]);
}
INSTANTIATE(refresh_working, REFRESH_PARAMS, (master, working, W))
