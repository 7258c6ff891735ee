// [shortcut] forward and backward on NHWC views of half or float (io.argus.detector.cuda.layers.Shortcut):
// out = act(a + b), a the previous layer, b layer `from`, same shape. Inference runs it for the shortcuts cuDNN did
// not fuse into the convolution before them. `lanes` channels are processed, `channels` of them real: where every
// view owns its pixels the padding is processed too and written as 0 (act(0) is not 0 for logistic), so training's
// invariant (padding holds zeros) survives. Backward hands g = dy act'(a + b) to both inputs' gradients (either may be
// absent; both the same buffer when from = previous) and leaves g in dy, in place, as
// io.argus.trainer.nn.ShortcutTrainLayer does. 64-bit indices, one 64-bit division per element.
#include "train_common.cuh"

#define SHORTCUT_PARAMS(T) (VIEW_PARAMS(const T, a), VIEW_PARAMS(const T, b), VIEW_PARAMS(T, out), int lanes, \
                            int channels, int pixels, int n, int act)
#define SHORTCUT_ARGS (a, aImage, aPixel, aOffset, b, bImage, bPixel, bOffset, out, outImage, outPixel, outOffset, \
                       lanes, channels, pixels, n, act)

template <typename T>
__device__ void shortcut_forward8 SHORTCUT_PARAMS(T) {
    int groups = lanes >> 3;
    int perImage = pixels * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long i0 = t / perImage;
        int r = (int) (t - i0 * perImage);
        int c0 = (r % groups) << 3;
        int p = r / groups;
        float u[8], v[8];
        ld8(a + vat(i0, aImage, p, aPixel, aOffset, c0), u);
        ld8(b + vat(i0, bImage, p, bPixel, bOffset, c0), v);
#pragma unroll
        for (int i = 0; i < 8; i++) u[i] = c0 + i < channels ? activate(u[i] + v[i], act) : 0.f;
        st8(out + vat(i0, outImage, p, outPixel, outOffset, c0), u);
    }
}
INSTANTIATE(shortcut_forward8, SHORTCUT_PARAMS, SHORTCUT_ARGS)

// One channel per thread (lanes = channels): views without whole aligned groups of 8.
template <typename T>
__device__ void shortcut_forward1 SHORTCUT_PARAMS(T) {
    int perImage = pixels * lanes;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long i0 = t / perImage;
        int r = (int) (t - i0 * perImage);
        int c = r % lanes;
        int p = r / lanes;
        float v = ld(a + vat(i0, aImage, p, aPixel, aOffset, c)) + ld(b + vat(i0, bImage, p, bPixel, bOffset, c));
        st(out + vat(i0, outImage, p, outPixel, outOffset, c), c < channels ? activate(v, act) : 0.f);
    }
}
INSTANTIATE(shortcut_forward1, SHORTCUT_PARAMS, SHORTCUT_ARGS)

#define SHORTCUT_BACKWARD_PARAMS(T) (VIEW_PARAMS(const T, a), VIEW_PARAMS(const T, b), VIEW_PARAMS(T, dy), \
                                     VIEW_PARAMS(T, da), VIEW_PARAMS(T, db), int lanes, int channels, int pixels, \
                                     int n, int act)

// 8 channels per thread (training's tensors own their pixels: the padding makes whole groups).
template <typename T>
__device__ void shortcut_backward8 SHORTCUT_BACKWARD_PARAMS(T) {
    int groups = lanes >> 3;
    int perImage = pixels * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long i0 = t / perImage;
        int r = (int) (t - i0 * perImage);
        int c0 = (r % groups) << 3;
        int p = r / groups;
        float u[8], v[8], g[8];
        ld8(a + vat(i0, aImage, p, aPixel, aOffset, c0), u);
        ld8(b + vat(i0, bImage, p, bPixel, bOffset, c0), v);
        T* gAt = dy + vat(i0, dyImage, p, dyPixel, dyOffset, c0);
        ld8(gAt, g);
#pragma unroll
        for (int i = 0; i < 8; i++) g[i] = c0 + i < channels ? g[i] * activate_grad(u[i] + v[i], act) : 0.f;
        st8(gAt, g);   // dy becomes dL/d(a + b), as the CPU layer leaves it
        if (da != nullptr) {
            float d[8];
            T* at = da + vat(i0, daImage, p, daPixel, daOffset, c0);
            ld8(at, d);
#pragma unroll
            for (int i = 0; i < 8; i++) d[i] += g[i];
            st8(at, d);
        }
        if (db != nullptr) {   // after da: when both are one buffer, the second add sees the first
            float d[8];
            T* at = db + vat(i0, dbImage, p, dbPixel, dbOffset, c0);
            ld8(at, d);
#pragma unroll
            for (int i = 0; i < 8; i++) d[i] += g[i];
            st8(at, d);
        }
    }
}
INSTANTIATE(shortcut_backward8, SHORTCUT_BACKWARD_PARAMS, (a, aImage, aPixel, aOffset, b, bImage, bPixel, bOffset,
        dy, dyImage, dyPixel, dyOffset, da, daImage, daPixel, daOffset, db, dbImage, dbPixel, dbOffset, lanes,
        channels, pixels, n, act))
