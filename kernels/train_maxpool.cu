// [maxpool] in training, Darknet's window placement (starts at out * stride + offset, offset = -padding / 2; taps
// outside the image ignored). Backward routes each output's gradient to the input that won its window, the first of
// equal maxima in row-major order, as io.argus.trainer.nn.MaxPoolTrainLayer: each input pixel gathers from the
// windows that contain it, re-deciding their winners, so no atomics are needed even when windows overlap.
#include "train_common.cuh"

#define MAXPOOL_PARAMS(T) (const T* in, T* out, int S, int h, int w, int oh, int ow, int size, int strideY, \
                           int strideX, int offset, int n)

template <typename T>
__device__ void maxpool_forward MAXPOOL_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, (long long) n * oh * ow * groups) {
        int c0 = (int) (t % groups) << 3;
        long long rest = t / groups;
        int op = (int) (rest % (oh * ow));
        long long b = rest / (oh * ow);
        int oy = op / ow, ox = op % ow;
        int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
        int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
        float m[8];
        bool first = true;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                float v[8];
                ld8(in + ((b * h + y) * w + x) * S + c0, v);
#pragma unroll
                for (int i = 0; i < 8; i++) m[i] = first || v[i] > m[i] ? v[i] : m[i];
                first = false;
            }
        }
        st8(out + (b * oh * ow + op) * S + c0, m);
    }
}
INSTANTIATE(maxpool_forward, MAXPOOL_PARAMS, (in, out, S, h, w, oh, ow, size, strideY, strideX, offset, n))

#define MAXPOOL_BACKWARD_PARAMS(T) (const T* in, const T* dy, T* dx, int S, int h, int w, int oh, int ow, int size, \
                                    int strideY, int strideX, int offset, int n)

template <typename T>
__device__ void maxpool_backward MAXPOOL_BACKWARD_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, (long long) n * h * w * groups) {
        int c0 = (int) (t % groups) << 3;
        long long rest = t / groups;
        int ip = (int) (rest % (h * w));
        long long b = rest / (h * w);
        int iy = ip / w, ix = ip % w;
        // windows containing (iy, ix): oy * strideY + offset <= iy < oy * strideY + offset + size
        int loY = iy - offset - size + 1, loX = ix - offset - size + 1;
        int oyMin = loY <= 0 ? 0 : (loY + strideY - 1) / strideY;
        int oxMin = loX <= 0 ? 0 : (loX + strideX - 1) / strideX;
        int oyMax = min(oh - 1, (iy - offset) / strideY);
        int oxMax = min(ow - 1, (ix - offset) / strideX);
        float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (int oy = oyMin; oy <= oyMax; oy++) {
            for (int ox = oxMin; ox <= oxMax; ox++) {
                int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
                int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
                float m[8];
                int win[8];
                bool first = true;
                for (int y = y0; y < y1; y++) {
                    for (int x = x0; x < x1; x++) {
                        float v[8];
                        ld8(in + ((b * h + y) * w + x) * S + c0, v);
#pragma unroll
                        for (int i = 0; i < 8; i++) {
                            if (first || v[i] > m[i]) {
                                m[i] = v[i];
                                win[i] = y * w + x;
                            }
                        }
                        first = false;
                    }
                }
                float g[8];
                ld8(dy + (b * oh * ow + oy * ow + ox) * S + c0, g);
#pragma unroll
                for (int i = 0; i < 8; i++) if (win[i] == ip) acc[i] += g[i];
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
INSTANTIATE(maxpool_backward, MAXPOOL_BACKWARD_PARAMS, (in, dy, dx, S, h, w, oh, ow, size, strideY, strideX, offset, n))
