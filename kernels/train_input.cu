// Training input: a batch of planar RGB floats (NCHW, 3 channels, as TrainingBatch holds them) to the network's
// input tensor, NHWC with 8 channels per pixel (RGB + 5 zeros) in the storage type.
#include "train_common.cuh"

#define INPUT_PARAMS(T) (const float* planar, T* out, int pixels, long long total)

template <typename T>
__device__ void input_nhwc INPUT_PARAMS(T) {
    FOR_EACH_LONG(t, total) {   // t = image * pixels + pixel
        long long b = t / pixels;
        long long p = t - b * pixels;
        const float* src = planar + b * 3 * pixels + p;
        float v[8] = {src[0], src[pixels], src[2 * pixels], 0.f, 0.f, 0.f, 0.f, 0.f};
        st8(out + t * 8, v);
    }
}
INSTANTIATE(input_nhwc, INPUT_PARAMS, (planar, out, pixels, total))
