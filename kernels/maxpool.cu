// [maxpool] forward and backward on NHWC views of half or float (io.argus.detector.cuda.layers.MaxPool), for
// inference and training alike. Darknet's window: it starts at out * stride + offset (offset = -padding / 2) and
// taps outside the image are ignored.
// The one rule for the maximum, as the CPU references (detector cpu/MaxPoolLayer's value, trainer
// nn/MaxPoolTrainLayer's winner): the first in-image tap in row-major order starts the window's maximum and a later
// tap replaces it only when strictly greater, so of equal maxima the first wins. Backward routes each output's
// gradient to that winner: each input pixel gathers from the windows that contain it, re-deciding their winners, so
// no atomics are needed even where windows overlap. Indices are 64-bit (batch x map exceeds 2^31 elements); one
// 64-bit division per element splits off the image, the rest is 32-bit.
#include "train_common.cuh"

#define MAXPOOL_PARAMS(T) (VIEW_PARAMS(const T, in), VIEW_PARAMS(T, out), int channels, int h, int w, int oh, \
                           int ow, int size, int strideY, int strideX, int offset, int n)
#define MAXPOOL_ARGS (in, inImage, inPixel, inOffset, out, outImage, outPixel, outOffset, channels, h, w, oh, ow, \
                      size, strideY, strideX, offset, n)

// 8 channels per thread (16-byte vectors of halves, two of floats): views with whole, aligned 8-channel groups.
template <typename T>
__device__ void maxpool_forward8 MAXPOOL_PARAMS(T) {
    int groups = channels >> 3;
    int perImage = oh * ow * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int op = r / groups;
        int oy = op / ow, ox = op % ow;
        int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
        int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
        float m[8];
#pragma unroll
        for (int i = 0; i < 8; i++) m[i] = NEG_INF;
        bool first = true;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                float v[8];
                ld8(in + vat(b, inImage, y * w + x, inPixel, inOffset, c0), v);
#pragma unroll
                for (int i = 0; i < 8; i++) m[i] = first || v[i] > m[i] ? v[i] : m[i];
                first = false;
            }
        }
        st8(out + vat(b, outImage, op, outPixel, outOffset, c0), m);
    }
}
INSTANTIATE(maxpool_forward8, MAXPOOL_PARAMS, MAXPOOL_ARGS)

// One channel per thread: views whose channels are not whole aligned groups of 8.
template <typename T>
__device__ void maxpool_forward1 MAXPOOL_PARAMS(T) {
    int perImage = oh * ow * channels;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c = r % channels;
        int op = r / channels;
        int oy = op / ow, ox = op % ow;
        int y0 = max(0, oy * strideY + offset), y1 = min(h, oy * strideY + offset + size);
        int x0 = max(0, ox * strideX + offset), x1 = min(w, ox * strideX + offset + size);
        float m = NEG_INF;
        bool first = true;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                float v = ld(in + vat(b, inImage, y * w + x, inPixel, inOffset, c));
                m = first || v > m ? v : m;
                first = false;
            }
        }
        st(out + vat(b, outImage, op, outPixel, outOffset, c), m);
    }
}
INSTANTIATE(maxpool_forward1, MAXPOOL_PARAMS, MAXPOOL_ARGS)

#define MAXPOOL_BACKWARD_PARAMS(T) (VIEW_PARAMS(const T, in), VIEW_PARAMS(const T, dy), VIEW_PARAMS(T, dx), \
                                    int channels, int h, int w, int oh, int ow, int size, int strideY, int strideX, \
                                    int offset, int n)

// dx += the gradient of every window this input pixel won; 8 channels per thread (training's tensors own their
// pixels, so the padded channels make whole groups).
template <typename T>
__device__ void maxpool_backward8 MAXPOOL_BACKWARD_PARAMS(T) {
    int groups = channels >> 3;
    int perImage = h * w * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int ip = r / groups;
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
                        ld8(in + vat(b, inImage, y * w + x, inPixel, inOffset, c0), v);
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
                ld8(dy + vat(b, dyImage, oy * ow + ox, dyPixel, dyOffset, c0), g);
#pragma unroll
                for (int i = 0; i < 8; i++) if (win[i] == ip) acc[i] += g[i];
            }
        }
        float d[8];
        T* at = dx + vat(b, dxImage, ip, dxPixel, dxOffset, c0);
        ld8(at, d);
#pragma unroll
        for (int i = 0; i < 8; i++) d[i] += acc[i];
        st8(at, d);
    }
}
INSTANTIATE(maxpool_backward8, MAXPOOL_BACKWARD_PARAMS, (in, inImage, inPixel, inOffset, dy, dyImage, dyPixel,
        dyOffset, dx, dxImage, dxPixel, dxOffset, channels, h, w, oh, ow, size, strideY, strideX, offset, n))
