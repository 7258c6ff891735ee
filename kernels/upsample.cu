// [upsample] forward and backward on NHWC views of half or float (io.argus.detector.cuda.layers.Upsample):
// nearest neighbour by an integer stride, times scale. Stride 2 is the common case: one thread reads 8 channels of
// an input pixel once and writes them to its 2x2 output block. Backward sums each stride x stride block of the
// gradient (times scale) into the input pixel's gradient. 64-bit indices, one 64-bit division per element.
#include "train_common.cuh"

#define UPSAMPLE_PARAMS(T) (VIEW_PARAMS(const T, in), VIEW_PARAMS(T, out), int channels, int h, int w, int stride, \
                            float scale, int n)
#define UPSAMPLE_ARGS (in, inImage, inPixel, inOffset, out, outImage, outPixel, outOffset, channels, h, w, stride, \
                       scale, n)

// Stride 2, 8 channels per thread: each input vector is read once and written to its 2x2 block (stride unused).
template <typename T>
__device__ void upsample2x_forward8 UPSAMPLE_PARAMS(T) {
    int groups = channels >> 3;
    int ow = w << 1;
    int perImage = h * w * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int p = r / groups;
        int y = p / w, x = p % w;
        float v[8];
        ld8(in + vat(b, inImage, p, inPixel, inOffset, c0), v);
        if (scale != 1.f) {
#pragma unroll
            for (int i = 0; i < 8; i++) v[i] *= scale;
        }
        int o = (y << 1) * ow + (x << 1);
        st8(out + vat(b, outImage, o, outPixel, outOffset, c0), v);
        st8(out + vat(b, outImage, o + 1, outPixel, outOffset, c0), v);
        st8(out + vat(b, outImage, o + ow, outPixel, outOffset, c0), v);
        st8(out + vat(b, outImage, o + ow + 1, outPixel, outOffset, c0), v);
    }
}
INSTANTIATE(upsample2x_forward8, UPSAMPLE_PARAMS, UPSAMPLE_ARGS)

// Any stride, 8 channels per thread, one output pixel each.
template <typename T>
__device__ void upsample_forward8 UPSAMPLE_PARAMS(T) {
    int groups = channels >> 3;
    int oh = h * stride, ow = w * stride;
    int perImage = oh * ow * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int op = r / groups;
        int y = op / ow / stride, x = op % ow / stride;
        float v[8];
        ld8(in + vat(b, inImage, y * w + x, inPixel, inOffset, c0), v);
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] *= scale;
        st8(out + vat(b, outImage, op, outPixel, outOffset, c0), v);
    }
}
INSTANTIATE(upsample_forward8, UPSAMPLE_PARAMS, UPSAMPLE_ARGS)

// Any stride, one channel per thread: views without whole aligned groups of 8.
template <typename T>
__device__ void upsample_forward1 UPSAMPLE_PARAMS(T) {
    int oh = h * stride, ow = w * stride;
    int perImage = oh * ow * channels;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c = r % channels;
        int op = r / channels;
        int y = op / ow / stride, x = op % ow / stride;
        float v = ld(in + vat(b, inImage, y * w + x, inPixel, inOffset, c));
        st(out + vat(b, outImage, op, outPixel, outOffset, c), scale * v);
    }
}
INSTANTIATE(upsample_forward1, UPSAMPLE_PARAMS, UPSAMPLE_ARGS)

#define UPSAMPLE_BACKWARD_PARAMS(T) (VIEW_PARAMS(const T, dy), VIEW_PARAMS(T, dx), int channels, int h, int w, \
                                     int stride, float scale, int n)

// dx += scale x the sum of the input pixel's block of dy; 8 channels per thread.
template <typename T>
__device__ void upsample_backward8 UPSAMPLE_BACKWARD_PARAMS(T) {
    int groups = channels >> 3;
    int ow = w * stride;
    int perImage = h * w * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int ip = r / groups;
        int iy = ip / w, ix = ip % w;
        float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (int dy0 = 0; dy0 < stride; dy0++) {
            for (int dx0 = 0; dx0 < stride; dx0++) {
                float g[8];
                ld8(dy + vat(b, dyImage, (iy * stride + dy0) * ow + ix * stride + dx0, dyPixel, dyOffset, c0), g);
#pragma unroll
                for (int i = 0; i < 8; i++) acc[i] += scale * g[i];
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
INSTANTIATE(upsample_backward8, UPSAMPLE_BACKWARD_PARAMS, (dy, dyImage, dyPixel, dyOffset, dx, dxImage, dxPixel,
        dxOffset, channels, h, w, stride, scale, n))
