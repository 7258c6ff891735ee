// [upsample] in training: nearest neighbour by an integer stride, times scale; backward sums each stride x stride
// block of the gradient (times scale) into the input pixel's gradient.
#include "train_common.cuh"

#define UPSAMPLE_PARAMS(T) (const T* in, T* out, int S, int h, int w, int stride, float scale, int n)

template <typename T>
__device__ void upsample_forward UPSAMPLE_PARAMS(T) {
    int groups = S >> 3;
    int oh = h * stride, ow = w * stride;
    FOR_EACH_LONG(t, (long long) n * oh * ow * groups) {
        int c0 = (int) (t % groups) << 3;
        long long rest = t / groups;
        int op = (int) (rest % (oh * ow));
        long long b = rest / (oh * ow);
        int y = op / ow / stride, x = op % ow / stride;
        float v[8];
        ld8(in + ((b * h + y) * w + x) * S + c0, v);
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] *= scale;
        st8(out + (b * oh * ow + op) * S + c0, v);
    }
}
INSTANTIATE(upsample_forward, UPSAMPLE_PARAMS, (in, out, S, h, w, stride, scale, n))

#define UPSAMPLE_BACKWARD_PARAMS(T) (const T* dy, T* dx, int S, int h, int w, int stride, float scale, int n)

template <typename T>
__device__ void upsample_backward UPSAMPLE_BACKWARD_PARAMS(T) {
    int groups = S >> 3;
    int ow = w * stride;
    FOR_EACH_LONG(t, (long long) n * h * w * groups) {
        int c0 = (int) (t % groups) << 3;
        long long rest = t / groups;
        int ip = (int) (rest % (h * w));
        long long b = rest / (h * w);
        int iy = ip / w, ix = ip % w;
        float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (int dy0 = 0; dy0 < stride; dy0++) {
            for (int dx0 = 0; dx0 < stride; dx0++) {
                float g[8];
                ld8(dy + ((b * h * stride + iy * stride + dy0) * ow + ix * stride + dx0) * S + c0, g);
#pragma unroll
                for (int i = 0; i < 8; i++) acc[i] += scale * g[i];
            }
        }
        float d[8];
        T* at = dx + (b * h * w + ip) * S + c0;
        ld8(at, d);
#pragma unroll
        for (int i = 0; i < 8; i++) d[i] += acc[i];
        st8(at, d);
    }
}
INSTANTIATE(upsample_backward, UPSAMPLE_BACKWARD_PARAMS, (dy, dx, S, h, w, stride, scale, n))
