// A convolution without batch norm in training: y = act(z + bias); backward turns dy into dL/dz = dy act'(z + bias)
// in place and sums it per channel for the bias gradient (FP32).
#include "train_common.cuh"

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
