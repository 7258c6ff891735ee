// The stand-in loss of `argus bench train` (io.argus.tools.trainer.StandInLoss; not part of the product's kernel set,
// packaged by the tools module): the mean of the squared head inputs (each [yolo] layer's input, real channels only),
// summed over heads. Adds lossScale * 2 y / count to the head's gradient; the loss into loss[0].
#include "../train_common.cuh"   // relative to this file, so nvcc alone finds it; KernelLibrary inlines it by name

#define STANDIN_PARAMS(T) (const T* y, T* dy, long long pixels, int S, int C, float inverseCount, float lossScale, \
                           double* loss)

template <typename T>
__device__ void standin_loss STANDIN_PARAMS(T) {
    __shared__ float scratch[256];
    float sum = 0.f;
    FOR_EACH_LONG(t, pixels * C) {
        long long at = (t / C) * S + t % C;
        float v = ld(y + at);
        sum += v * v * inverseCount;
        st(dy + at, ld(dy + at) + lossScale * 2.f * v * inverseCount);
    }
    float total = block_sum(sum, scratch);
    if (threadIdx.x == 0) atomicAdd(loss, (double) total);
}
INSTANTIATE(standin_loss, STANDIN_PARAMS, (y, dy, pixels, S, C, inverseCount, lossScale, loss))
