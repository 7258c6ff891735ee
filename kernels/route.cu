// [route] on NHWC views of half or float (io.argus.detector.cuda.layers.Route): copies a channel slice of an input
// into its place in the concatenation (forward; inference only for the inputs their producer could not write in
// place, see io.argus.detector.cuda.BufferPlan), or adds the route gradient's slice back into the input's gradient
// (backward, accumulate = 1). 64-bit indices, one 64-bit division per element.
#include "train_common.cuh"

#define ROUTE_PARAMS(T) (VIEW_PARAMS(const T, src), VIEW_PARAMS(T, dst), int channels, int pixels, int n, \
                         int accumulate)
#define ROUTE_ARGS (src, srcImage, srcPixel, srcOffset, dst, dstImage, dstPixel, dstOffset, channels, pixels, n, \
                    accumulate)

// 8 channels per thread: slices of whole aligned groups of 8 (a plain copy moves 16-byte vectors untouched).
template <typename T>
__device__ void route_copy8 ROUTE_PARAMS(T) {
    int groups = channels >> 3;
    int perImage = pixels * groups;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c0 = (r % groups) << 3;
        int p = r / groups;
        const T* from = src + vat(b, srcImage, p, srcPixel, srcOffset, c0);
        T* to = dst + vat(b, dstImage, p, dstPixel, dstOffset, c0);
        if (accumulate) {
            float v[8], d[8];
            ld8(from, v);
            ld8(to, d);
#pragma unroll
            for (int i = 0; i < 8; i++) v[i] += d[i];
            st8(to, v);
        } else {
            constexpr int vectors = sizeof(T) * 8 / 16;   // 16-byte vectors per 8 values: 1 for half, 2 for float
#pragma unroll
            for (int k = 0; k < vectors; k++) {
                reinterpret_cast<vec16*>(to)[k] = reinterpret_cast<const vec16*>(from)[k];
            }
        }
    }
}
INSTANTIATE(route_copy8, ROUTE_PARAMS, ROUTE_ARGS)

// One channel per thread: slices that are not whole aligned groups of 8.
template <typename T>
__device__ void route_copy1 ROUTE_PARAMS(T) {
    int perImage = pixels * channels;
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int c = r % channels;
        int p = r / channels;
        const T* from = src + vat(b, srcImage, p, srcPixel, srcOffset, c);
        T* to = dst + vat(b, dstImage, p, dstPixel, dstOffset, c);
        if (accumulate) {
            st(to, ld(from) + ld(to));
        } else {
            *to = *from;   // bit-exact copy
        }
    }
}
INSTANTIATE(route_copy1, ROUTE_PARAMS, ROUTE_ARGS)
