// (f, part 2) Darknet's per-class NMS on the GPU (io.argus.detector.post.Nms): one block per (class, image) sorts
// that class's candidates by prob (ties by CPU order), greedily suppresses overlaps above the threshold, and appends
// the survivors to the image's detection records, so only final detections travel to the host.
#include "common.cuh"

#define NMS_MAX 1024   // candidates of one class in one image; more sets the overflow flag (host falls back)

struct Box {   // centre x, y and size w, h, relative to the source image
    float x, y, w, h;
};

#define KIND_DEFAULT 0
#define KIND_GREEDY 1
#define KIND_DIOU 2
#define KIND_CORNERS 3

__device__ __forceinline__ float overlap1(float c1, float s1, float c2, float s2) {
    float l = fmaxf(c1 - s1 / 2, c2 - s2 / 2);
    float r = fminf(c1 + s1 / 2, c2 + s2 / 2);
    return r - l;
}

__device__ __forceinline__ float box_iou(Box a, Box b) {
    float ow = overlap1(a.x, a.w, b.x, b.w);
    float oh = overlap1(a.y, a.h, b.y, b.h);
    if (ow <= 0 || oh <= 0) return 0.f;
    float inter = ow * oh;
    float uni = a.w * a.h + b.w * b.h - inter;
    return uni == 0 ? 0.f : inter / uni;
}

__device__ __forceinline__ float box_diou(Box a, Box b, float beta) {
    float top = fminf(a.y - a.h / 2, b.y - b.h / 2);
    float bot = fmaxf(a.y + a.h / 2, b.y + b.h / 2);
    float left = fminf(a.x - a.w / 2, b.x - b.w / 2);
    float right = fmaxf(a.x + a.w / 2, b.x + b.w / 2);
    float cw = right - left, ch = bot - top;
    float c = cw * cw + ch * ch;
    float iou = box_iou(a, b);
    if (c == 0) return iou;
    float d = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
    return iou - powf(d / c, beta);
}

// true when (pa, ka) goes before (pb, kb): higher prob first, then the CPU's candidate order
__device__ __forceinline__ bool before(float pa, int ka, float pb, int kb) {
    return pa > pb || (pa == pb && ka < kb);
}

extern "C" __global__ void nms_per_class(const float* boxes, const float* probs, const int* keys,
                                         const int* counts, int cap, int classes, float nmsThresh, int kind,
                                         float beta, int* records, int* recordCounts, int recordCap,
                                         int* overflow) {
    __shared__ float sProb[NMS_MAX];
    __shared__ int sKey[NMS_MAX];
    __shared__ int sIdx[NMS_MAX];
    __shared__ Box sBox[NMS_MAX];
    __shared__ unsigned char sAlive[NMS_MAX];
    __shared__ int sCount;
    int k = blockIdx.x, b = blockIdx.y, tid = threadIdx.x;
    int count = counts[b];
    if (count > cap) return;   // decode overflowed: the host handles this image
    if (tid == 0) sCount = 0;
    __syncthreads();
    for (int i = tid; i < count; i += blockDim.x) {
        long long c = (long long) b * cap + i;
        float p = probs[c * classes + k];
        if (p > 0.f) {
            int j = atomicAdd(&sCount, 1);
            if (j < NMS_MAX) {
                sProb[j] = p;
                sKey[j] = keys[c];
                sIdx[j] = i;
            }
        }
    }
    __syncthreads();
    int m = sCount;
    if (m == 0) return;
    if (m > NMS_MAX) {
        if (tid == 0) atomicOr(&overflow[b], 1);
        return;
    }
    int size = 1;
    while (size < m) size <<= 1;
    for (int i = m + tid; i < size; i += blockDim.x) {
        sProb[i] = -1.f;
        sKey[i] = 0x7fffffff;
        sIdx[i] = -1;
    }
    __syncthreads();
    // bitonic sort into "before" order
    for (int span = 2; span <= size; span <<= 1) {
        for (int j = span >> 1; j > 0; j >>= 1) {
            for (int i = tid; i < size; i += blockDim.x) {
                int partner = i ^ j;
                if (partner > i) {
                    bool firstHalf = (i & span) == 0;
                    bool swap = firstHalf ? before(sProb[partner], sKey[partner], sProb[i], sKey[i])
                                          : before(sProb[i], sKey[i], sProb[partner], sKey[partner]);
                    if (swap) {
                        float tp = sProb[i]; sProb[i] = sProb[partner]; sProb[partner] = tp;
                        int tk = sKey[i]; sKey[i] = sKey[partner]; sKey[partner] = tk;
                        int ti = sIdx[i]; sIdx[i] = sIdx[partner]; sIdx[partner] = ti;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (int i = tid; i < m; i += blockDim.x) {
        long long c = (long long) b * cap + sIdx[i];
        sBox[i] = Box{boxes[4 * c], boxes[4 * c + 1], boxes[4 * c + 2], boxes[4 * c + 3]};
        sAlive[i] = 1;
    }
    __syncthreads();
    if (nmsThresh > 0.f) {
        for (int i = 0; i < m - 1; i++) {
            if (sAlive[i]) {   // same value in every thread: written before the last barrier
                Box bi = sBox[i];
                for (int j = i + 1 + tid; j < m; j += blockDim.x) {
                    if (!sAlive[j]) continue;
                    float o = kind == KIND_GREEDY ? box_diou(bi, sBox[j], 0.6f)
                            : kind == KIND_DIOU ? box_diou(bi, sBox[j], beta)
                            : box_iou(bi, sBox[j]);
                    if (o > nmsThresh) sAlive[j] = 0;
                }
            }
            __syncthreads();
        }
    }
    for (int i = tid; i < m; i += blockDim.x) {
        if (!sAlive[i]) continue;
        int slot = atomicAdd(&recordCounts[b], 1);
        if (slot >= recordCap) continue;   // the host sees the count and falls back
        int* r = records + ((long long) b * recordCap + slot) * 8;
        Box box = sBox[i];
        r[0] = sKey[i];
        r[1] = k;
        r[2] = __float_as_int(sProb[i]);
        r[3] = __float_as_int(box.x);
        r[4] = __float_as_int(box.y);
        r[5] = __float_as_int(box.w);
        r[6] = __float_as_int(box.h);
        r[7] = 0;
    }
}
