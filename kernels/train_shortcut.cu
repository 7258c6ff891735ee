// [shortcut] in training: y = act(a + b) (a the previous layer, b layer `from`, same shape); backward hands
// da = dy act'(a + b) to both inputs' gradients (either may be absent; both the same buffer when from = previous).
// Backward leaves da in dy, in place, as io.argus.trainer.nn.ShortcutTrainLayer does.
#include "train_common.cuh"

#define SHORTCUT_PARAMS(T) (const T* a, const T* b, T* y, long long pixels, int S, int C, int act)

template <typename T>
__device__ void shortcut_forward SHORTCUT_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c0 = (int) (t % groups) << 3;
        long long at = (t / groups) * S + c0;
        float u[8], v[8];
        ld8(a + at, u);
        ld8(b + at, v);
#pragma unroll
        for (int i = 0; i < 8; i++) u[i] = c0 + i < C ? activate(u[i] + v[i], act) : 0.f;
        st8(y + at, u);
    }
}
INSTANTIATE(shortcut_forward, SHORTCUT_PARAMS, (a, b, y, pixels, S, C, act))

#define SHORTCUT_BACKWARD_PARAMS(T) (const T* a, const T* b, T* dy, T* da, T* db, long long pixels, int S, int C, \
                                     int act)

template <typename T>
__device__ void shortcut_backward SHORTCUT_BACKWARD_PARAMS(T) {
    int groups = S >> 3;
    FOR_EACH_LONG(t, pixels * groups) {
        int c0 = (int) (t % groups) << 3;
        long long at = (t / groups) * S + c0;
        float u[8], v[8], g[8];
        ld8(a + at, u);
        ld8(b + at, v);
        ld8(dy + at, g);
#pragma unroll
        for (int i = 0; i < 8; i++) g[i] = c0 + i < C ? g[i] * activate_grad(u[i] + v[i], act) : 0.f;
        st8(dy + at, g);   // dy becomes dL/d(a + b), as the CPU layer leaves it
        T* targets[2] = {da, db};
        for (int k = 0; k < 2; k++) {
            if (targets[k] == nullptr) continue;
            float d[8];
            ld8(targets[k] + at, d);
#pragma unroll
            for (int i = 0; i < 8; i++) d[i] += g[i];
            st8(targets[k] + at, d);
        }
    }
}
INSTANTIATE(shortcut_backward, SHORTCUT_BACKWARD_PARAMS, (a, b, dy, da, db, pixels, S, C, act))
