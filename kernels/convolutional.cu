// The [convolutional] layer's kernels (io.argus.detector.cuda.layers.Convolutional), for both networks; cuDNN does
// the convolution itself.
//
// Inference, FP16 views: (a) bias + activation in one pass over an FP16 NHWC view, in place: the epilogue for
// convolutions whose activation cuDNN could not fuse (bias_activation_vec8 / _scalar, plain extern "C"); (b) a
// direct convolution over the image's 3 channels (conv_direct_k<OC>).
//
// Training, templated over the storage type T (INSTANTIATE: NAME_h, NAME_f):
// (c) a convolution without batch norm: y = act(z + bias); backward turns dy into dL/dz = dy act'(z + bias) in place
//     and sums it per channel for the bias gradient (FP32).
// (d) batch normalization, per channel over images and pixels, as io.argus.trainer.nn.ConvolutionalTrainLayer: the
//     batch's mean and variance (n-1), the rolling statistics moved 1% towards them, then scale, bias and the
//     activation; backward is the exact gradient through the batch statistics. Statistics and parameters are FP32;
//     z (the convolution's output), y and the gradients are T. Per-channel arrays are S long (S = padded channels).
#include "train_common.cuh"

// ---- (a) inference: bias + activation on FP16 views ----

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

// ---- (b) inference: a direct convolution over the 3 channels of the image ----

// A network's first layer (on the letterboxed RGB image), with its bias and activation. Why not cuDNN: with 3
// channels padded to 8 its tensor-core engines read 16-byte pixels of which 6 bytes count and keep the tensor pipe
// under a tenth busy (the costliest kernel of a yolov4-tiny forward). Here a thread reads each tap's 4 halves once
// (8 bytes, the fourth unused) and multiplies them by FP32 weights held in shared memory, for one output pixel and
// all OC output channels at once. The launch bounds keep two blocks of 256 threads per SM up to 32 channels without
// spilling (two output pixels per thread needed ~150 registers and left one block). On the H200 at yolov4-tiny's
// batch 64 this ran at about cuDNN's speed tap by tap (0.250 vs 0.259 ms), 0.232 ms with a 3x3 filter's nine loads
// issued first (direct_taps), and a variant that first copied each 8x32 output tile's input into shared memory ran
// slower (0.350 ms). Neither the FP32 units (~0.07 ms) nor DRAM (~0.09 ms for its 354 MB) bound it: the weights'
// shared-memory reads do (each thread reads all 27 x OC of them for every pixel; Nsight Compute: L1 86% busy, 25%
// occupancy). Holding 4 output channels' weights in registers per thread, 8 threads a pixel, ran 0.466 ms: every
// thread then repeats the pixel's index and bounds arithmetic. Weights: [size][size][3][OC] FP32 (padded
// filters zero). The input view's pixel stride and offset are multiples of 4, the output's of 8 (16-byte stores).
// The Java side (Convolutional) times this against cuDNN's plan and keeps the faster.
#define DIRECT_WEIGHTS 4096

struct alignas(16) f4 {
    float x, y, z, w;
};
struct alignas(8) u2 {
    unsigned int x, y;
};

// acc += one tap's 3 channels (a pixel's 4 halves, the fourth unused) times its FP32 weights [3][OC].
template <int OC>
__device__ __forceinline__ void direct_tap(u2 u, const f4* w, float* acc) {
    float v[4];
    unpack2(u.x, v);
    unpack2(u.y, v + 2);
#pragma unroll
    for (int c = 0; c < 3; c++) {
#pragma unroll
        for (int o = 0; o < OC / 4; o++) {
            f4 q = w[c * (OC / 4) + o];
            acc[4 * o] += v[c] * q.x;
            acc[4 * o + 1] += v[c] * q.y;
            acc[4 * o + 2] += v[c] * q.z;
            acc[4 * o + 3] += v[c] * q.w;
        }
    }
}

// The taps of one output pixel. K > 0: a K x K filter known when compiling: every tap's load is issued before any
// arithmetic (taps outside the image read as zeros), so a pixel costs one memory round trip instead of K x K; tap by
// tap, the first layer of yolov4-tiny waited on its loads (0.250 ms at b64, its arithmetic ~0.07 ms). K = 0: the
// size at run time, tap by tap. The same products are added in the same order either way.
template <int OC, int K>
__device__ __forceinline__ void direct_taps(const half_t* image, int oy, int ox, int inH, int inW, int xPixel,
                                            int size, int stride, int pad, const f4* sW, float* acc) {
    if constexpr (K > 0) {
        u2 u[K * K];
#pragma unroll
        for (int i = 0; i < K * K; i++) {
            int iy = oy * stride - pad + i / K, ix = ox * stride - pad + i % K;
            bool inside = iy >= 0 && iy < inH && ix >= 0 && ix < inW;
            u[i] = inside ? *reinterpret_cast<const u2*>(image + ((long long) iy * inW + ix) * xPixel) : u2{0u, 0u};
        }
#pragma unroll
        for (int i = 0; i < K * K; i++) direct_tap<OC>(u[i], sW + i * 3 * (OC / 4), acc);
    } else {
        for (int r = 0; r < size; r++) {
            int iy = oy * stride - pad + r;
            if (iy < 0 || iy >= inH) continue;
            for (int s = 0; s < size; s++) {
                int ix = ox * stride - pad + s;
                if (ix < 0 || ix >= inW) continue;
                direct_tap<OC>(*reinterpret_cast<const u2*>(image + ((long long) iy * inW + ix) * xPixel),
                               sW + (r * size + s) * 3 * (OC / 4), acc);
            }
        }
    }
}

template <int OC>
__device__ void conv_direct(const half_t* x, long long xImage, int xPixel, int xOffset, int inH, int inW,
                            half_t* y, long long yImage, int yPixel, int yOffset, int outH, int outW,
                            const float* weights, const float* bias, int size, int stride, int pad, int n, int act) {
    __shared__ f4 sW[DIRECT_WEIGHTS / 4];
    __shared__ float sB[OC];
    int count = size * size * 3 * OC / 4;
    for (int i = threadIdx.x; i < count; i += blockDim.x) sW[i] = reinterpret_cast<const f4*>(weights)[i];
    for (int i = threadIdx.x; i < OC; i += blockDim.x) sB[i] = bias[i];
    __syncthreads();
    FOR_EACH(t, n * outH * outW) {
        int ox = t % outW;
        int rest = t / outW;
        int oy = rest % outH;
        int b = rest / outH;
        // the weights stay in shared memory: without this barrier the compiler hoists their loads out of the loop into
        // registers (a 3x3 filter of 16 outputs is 432 floats) and spills
        asm volatile("" ::: "memory");
        float acc[OC];
#pragma unroll
        for (int o = 0; o < OC; o++) acc[o] = sB[o];
        const half_t* image = x + b * xImage + xOffset;
        if (size == 3) direct_taps<OC, 3>(image, oy, ox, inH, inW, xPixel, size, stride, pad, sW, acc);
        else direct_taps<OC, 0>(image, oy, ox, inH, inW, xPixel, size, stride, pad, sW, acc);
        half_t* out = y + at(b, yImage, oy * outW + ox, yPixel, yOffset, 0);
#pragma unroll
        for (int o = 0; o < OC; o += 8) {
            float v8[8];
#pragma unroll
            for (int i = 0; i < 8; i++) v8[i] = activate(acc[o + i], act);
            store8(out + o, v8);
        }
    }
}

#define CONV_DIRECT(OC)                                                                                          \
    extern "C" __global__ void __launch_bounds__(256, OC <= 32 ? 2 : 1) conv_direct_k##OC(                      \
        const half_t* x, long long xImage, int xPixel, int xOffset, int inH, int inW, half_t* y,                 \
        long long yImage, int yPixel, int yOffset, int outH, int outW, const float* weights, const float* bias,   \
        int size, int stride, int pad, int n, int act) {                                                         \
        conv_direct<OC>(x, xImage, xPixel, xOffset, inH, inW, y, yImage, yPixel, yOffset, outH, outW, weights,   \
                        bias, size, stride, pad, n, act);                                                        \
    }
CONV_DIRECT(16)
CONV_DIRECT(32)
CONV_DIRECT(64)

// ---- (c) training without batch norm: bias + activation ----

#define BIAS_ACT_PARAMS(T) (const T* z, T* y, long long pixels, int S, int C, const float* bias, int act)

template <typename T>
__device__ void bias_act BIAS_ACT_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c0 = (int) (t % groups) << 3;
        long long at = (t / groups) * S + c0;
        float v[8];
        ld8(z + at, v);
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = c0 + i < C ? activate(v[i] + bias[c0 + i], act) : 0.f;
        st8(y + at, v);
    }
}
INSTANTIATE(bias_act, BIAS_ACT_PARAMS, (z, y, pixels, S, C, bias, act))

#define BIAS_ACT_BACKWARD_PARAMS(T) (T* dy, const T* z, long long pixels, int S, int C, const float* bias, int act, \
                                     float* partial)

template <typename T>
__device__ void bias_act_backward BIAS_ACT_BACKWARD_PARAMS(T) {
    __shared__ float sDa[MAX_STRIDE];
    __shared__ float sUnused[MAX_STRIDE];
    clear_channels(sDa, sUnused, S);
    Lanes l = reduction_lanes(S >> 3);
    if (l.active) {
        int c0 = l.group << 3;
        float b[8], da[8];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            b[i] = c0 + i < C ? bias[c0 + i] : 0.f;
            da[i] = 0.f;
        }
        for (long long p = l.first; p < pixels; p += l.step) {
            float d[8], v[8];
            ld8(dy + p * S + c0, d);
            ld8(z + p * S + c0, v);
#pragma unroll
            for (int i = 0; i < 8; i++) {
                d[i] = c0 + i < C ? d[i] * activate_grad(v[i] + b[i], act) : 0.f;
                da[i] += d[i];
            }
            st8(dy + p * S + c0, d);
        }
#pragma unroll
        for (int i = 0; i < 8; i++) if (c0 + i < C) atomicAdd(&sDa[c0 + i], da[i]);
    }
    write_partials(sDa, sUnused, S, partial);
}
INSTANTIATE(bias_act_backward, BIAS_ACT_BACKWARD_PARAMS, (dy, z, pixels, S, C, bias, act, partial))

// biasGradient[c] += the per-channel sums of the blocks' rows. One block per 8 channels.
extern "C" __global__ void bias_backward_finalize(const float* partial, int blocks, int C, int S,
                                                  float* biasGradient) {
    __shared__ double sums[2][8];
    sum_rows8(partial, blocks, S, sums);
    int c = blockIdx.x * 8 + threadIdx.x;
    if (threadIdx.x < 8 && c < C) biasGradient[c] += (float) sums[0][threadIdx.x];
}

// ---- (d) training with batch norm ----

// Sums of (z - shift) and (z - shift)^2 per channel, shift = the rolling mean (near the batch mean, so the one-pass
// variance does not cancel).
#define BN_STATS_PARAMS(T) (const T* z, long long pixels, int S, const float* shift, float* partial)

template <typename T>
__device__ void bn_stats BN_STATS_PARAMS(T) {
    __shared__ float sSum[MAX_STRIDE];
    __shared__ float sSq[MAX_STRIDE];
    clear_channels(sSum, sSq, S);
    Lanes l = reduction_lanes(S >> 3);
    if (l.active) {
        int c0 = l.group << 3;
        float k[8], sum[8], sq[8];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            k[i] = shift[c0 + i];
            sum[i] = 0.f;
            sq[i] = 0.f;
        }
        for (long long p = l.first; p < pixels; p += l.step) {
            float v[8];
            ld8(z + p * S + c0, v);
#pragma unroll
            for (int i = 0; i < 8; i++) {
                float d = v[i] - k[i];
                sum[i] += d;
                sq[i] += d * d;
            }
        }
#pragma unroll
        for (int i = 0; i < 8; i++) {
            atomicAdd(&sSum[c0 + i], sum[i]);
            atomicAdd(&sSq[c0 + i], sq[i]);
        }
    }
    write_partials(sSum, sSq, S, partial);
}
INSTANTIATE(bn_stats, BN_STATS_PARAMS, (z, pixels, S, shift, partial))

// Per channel: batch mean, variance (n-1), 1/sqrt(var + eps); rolling mean/variance moved 1% towards the batch's.
// Channels >= C get mean 0 and inv 0. One block of 256 threads per 8 channels (sum_rows8).
extern "C" __global__ void bn_finalize(const float* partial, int blocks, int C, int S, long long count,
                                       float* rollingMean, float* rollingVariance, float* mean, float* inv,
                                       float* variance, float eps) {
    __shared__ double sums[2][8];
    sum_rows8(partial, blocks, S, sums);
    int c = blockIdx.x * 8 + threadIdx.x;
    if (threadIdx.x >= 8 || c >= S) return;
    if (c >= C) {
        mean[c] = 0.f;
        inv[c] = 0.f;
        variance[c] = 0.f;
        return;
    }
    double k = rollingMean[c];   // the shift bn_stats used
    double d = sums[0][threadIdx.x];
    double q = sums[1][threadIdx.x];
    float m = (float) (k + d / count);
    double centred = q - d * d / count;
    float var = (float) (centred > 0.0 ? centred / (count > 1 ? count - 1 : 1) : 0.0);
    mean[c] = m;
    variance[c] = var;
    inv[c] = (float) (1.0 / sqrt((double) var + eps));
    rollingMean[c] = __fadd_rn(__fmul_rn(0.99f, rollingMean[c]), __fmul_rn(0.01f, m));
    rollingVariance[c] = __fadd_rn(__fmul_rn(0.99f, rollingVariance[c]), __fmul_rn(0.01f, var));
}

// y = act(gamma (z - mean) inv + beta); padded channels 0. gamma and beta hold C values.
#define BN_APPLY_PARAMS(T) (const T* z, T* y, long long pixels, int S, int C, const float* mean, const float* inv, \
                            const float* gamma, const float* beta, int act)

template <typename T>
__device__ void bn_apply BN_APPLY_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c0 = (int) (t % groups) << 3;
        long long at = (t / groups) * S + c0;
        float v[8];
        ld8(z + at, v);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int c = c0 + i;
            v[i] = c < C ? activate((v[i] - mean[c]) * inv[c] * gamma[c] + beta[c], act) : 0.f;
        }
        st8(y + at, v);
    }
}
INSTANTIATE(bn_apply, BN_APPLY_PARAMS, (z, y, pixels, S, C, mean, inv, gamma, beta, act))

// Backward, pass 1: per channel the sums of da = dy act'(a) and da x-hat.
#define BN_BACKWARD_REDUCE_PARAMS(T) (const T* dy, const T* z, long long pixels, int S, int C, const float* mean, \
                                      const float* inv, const float* gamma, const float* beta, int act, float* partial)

template <typename T>
__device__ void bn_backward_reduce BN_BACKWARD_REDUCE_PARAMS(T) {
    __shared__ float sDa[MAX_STRIDE];
    __shared__ float sDaX[MAX_STRIDE];
    clear_channels(sDa, sDaX, S);
    Lanes l = reduction_lanes(S >> 3);
    if (l.active) {
        int c0 = l.group << 3;
        float m[8], iv[8], g[8], bt[8], da[8], dax[8];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int c = c0 + i;
            bool real = c < C;
            m[i] = mean[c];
            iv[i] = inv[c];
            g[i] = real ? gamma[c] : 0.f;
            bt[i] = real ? beta[c] : 0.f;
            da[i] = 0.f;
            dax[i] = 0.f;
        }
        for (long long p = l.first; p < pixels; p += l.step) {
            float d[8], v[8];
            ld8(dy + p * S + c0, d);
            ld8(z + p * S + c0, v);
#pragma unroll
            for (int i = 0; i < 8; i++) {
                float xhat = (v[i] - m[i]) * iv[i];
                float a = xhat * g[i] + bt[i];
                float e = d[i] * activate_grad(a, act);
                da[i] += e;
                dax[i] += e * xhat;
            }
        }
#pragma unroll
        for (int i = 0; i < 8; i++) {
            if (c0 + i < C) {
                atomicAdd(&sDa[c0 + i], da[i]);
                atomicAdd(&sDaX[c0 + i], dax[i]);
            }
        }
    }
    write_partials(sDa, sDaX, S, partial);
}
INSTANTIATE(bn_backward_reduce, BN_BACKWARD_REDUCE_PARAMS, (dy, z, pixels, S, C, mean, inv, gamma, beta, act, partial))

// Per channel: bias and scale gradients += the sums; the two terms pass 2 subtracts:
// meanTerm = gamma sum(da) / M, varianceTerm = gamma sum(da xhat) / (M - 1). One block per 8 channels.
extern "C" __global__ void bn_backward_finalize(const float* partial, int blocks, int C, int S, long long count,
                                                const float* gamma, float* biasGradient, float* scaleGradient,
                                                float* meanTerm, float* varianceTerm) {
    __shared__ double sums[2][8];
    sum_rows8(partial, blocks, S, sums);
    int c = blockIdx.x * 8 + threadIdx.x;
    if (threadIdx.x >= 8 || c >= S) return;
    if (c >= C) {
        meanTerm[c] = 0.f;
        varianceTerm[c] = 0.f;
        return;
    }
    double da = sums[0][threadIdx.x];
    double dax = sums[1][threadIdx.x];
    biasGradient[c] += (float) da;
    scaleGradient[c] += (float) dax;
    meanTerm[c] = (float) (gamma[c] * da / count);
    varianceTerm[c] = (float) (gamma[c] * dax / (count > 1 ? count - 1 : 1));
}

// Backward, pass 2, in place: dy becomes dL/dz = inv (gamma da - meanTerm - xhat varianceTerm); padded channels 0.
#define BN_BACKWARD_APPLY_PARAMS(T) (T* dy, const T* z, long long pixels, int S, int C, const float* mean, \
                                     const float* inv, const float* gamma, const float* beta, int act, \
                                     const float* meanTerm, const float* varianceTerm)

template <typename T>
__device__ void bn_backward_apply BN_BACKWARD_APPLY_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c0 = (int) (t % groups) << 3;
        long long at = (t / groups) * S + c0;
        float d[8], v[8];
        ld8(dy + at, d);
        ld8(z + at, v);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int c = c0 + i;
            if (c < C) {
                float xhat = (v[i] - mean[c]) * inv[c];
                float a = xhat * gamma[c] + beta[c];
                float da = d[i] * activate_grad(a, act);
                d[i] = inv[c] * (gamma[c] * da - meanTerm[c] - xhat * varianceTerm[c]);
            } else {
                d[i] = 0.f;
            }
        }
        st8(dy + at, d);
    }
}
INSTANTIATE(bn_backward_apply, BN_BACKWARD_APPLY_PARAMS,
            (dy, z, pixels, S, C, mean, inv, gamma, beta, act, meanTerm, varianceTerm))
