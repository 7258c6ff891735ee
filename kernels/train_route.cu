// [route] in training: forward copies a channel slice of an input into its place in the route's output; backward
// adds the route gradient's slice back into the input's gradient (accumulate = 1). 8-channel vectors when the slice
// and both offsets are whole groups of 8, single channels otherwise.
#include "train_common.cuh"

#define ROUTE_PARAMS(T) (const T* src, int srcS, int srcOffset, T* dst, int dstS, int dstOffset, int count, \
                         long long pixels, int accumulate)

template <typename T>
__device__ void route_copy8 ROUTE_PARAMS(T) {
    int groups = count >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c = (int) (t % groups) << 3;
        long long p = t / groups;
        float v[8];
        ld8(src + p * srcS + srcOffset + c, v);
        T* at = dst + p * dstS + dstOffset + c;
        if (accumulate) {
            float d[8];
            ld8(at, d);
#pragma unroll
            for (int i = 0; i < 8; i++) v[i] += d[i];
        }
        st8(at, v);
    }
}
INSTANTIATE(route_copy8, ROUTE_PARAMS, (src, srcS, srcOffset, dst, dstS, dstOffset, count, pixels, accumulate))

template <typename T>
__device__ void route_copy1 ROUTE_PARAMS(T) {
    FOR_EACH_LONG(t, pixels * count) {
        int c = (int) (t % count);
        long long p = t / count;
        float v = ld(src + p * srcS + srcOffset + c);
        T* at = dst + p * dstS + dstOffset + c;
        st(at, accumulate ? v + ld(at) : v);
    }
}
INSTANTIATE(route_copy1, ROUTE_PARAMS, (src, srcS, srcOffset, dst, dstS, dstOffset, count, pixels, accumulate))
