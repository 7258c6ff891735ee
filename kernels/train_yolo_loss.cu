// The YOLO loss of one [yolo] head on the GPU, as io.argus.trainer.loss.YoloLoss (Darknet's forward_yolo_layer),
// read straight from the head's raw input x (the logistic, scale_x_y and box decoding are applied here). Three
// launches per head and pass:
//   yolo_assign_predictions  one thread per (image, anchor, cell): negatives, ignored anchors, truth_thresh positives;
//   yolo_assign_truths       one thread per (image, truth): the truth's cell and best anchors become positives;
//   yolo_finish              one thread per (image, anchor, cell): objectness and class terms, the box gradients
//                            (averaged with iou_thresh), everything times the loss scale into the head's gradient.
// The box terms (MSE, or IoU/GIoU/DIoU/CIoU with their gradients) are fused into the assignment kernels. Targets
// live in per-pass scratch (class targets as bit masks); loss parts are summed into loss[0..4] = box, objectness,
// classes, assigned truths, sum of their IoU.
#include "train_common.cuh"
#include "train_box_iou.cuh"

#define MAX_ANCHORS 16

// Written by io.argus.trainer.cuda.YoloLossLayer in this order: 12 ints, 10 floats, the anchors, the mask.
struct YoloHead {
    int lw, lh, anchorsPerCell, classes, stride, numAnchors, netW, netH, newCoords, iouKind, objectnessSmooth, words;
    float scaleXY, ignoreThresh, truthThresh, iouThresh, iouNormalizer, clsNormalizer, objNormalizer, maxDelta,
          labelSmoothEps, unused;
    float anchors[2 * MAX_ANCHORS];
    int mask[MAX_ANCHORS];
};

#define TRUTH_FLOATS 5

// The activated output of a raw value: logistic unless new_coords.
__device__ __forceinline__ float yolo_out(float z, const YoloHead& h) { return h.newCoords ? z : logistic(z); }

// x, y of the activated output (scale_x_y applied).
__device__ __forceinline__ float yolo_centre(float z, const YoloHead& h) {
    return yolo_out(z, h) * h.scaleXY - 0.5f * (h.scaleXY - 1.f);
}

// -(p log sigma(z) + (1 - p) log(1 - sigma(z))), stable for large |z|.
__device__ __forceinline__ float bce_logit(float z, float p) {
    float softplus = z > 0.f ? z + log1pf(expf(-z)) : log1pf(expf(z));
    return softplus - p * z;
}

// The loss whose gradient by z is (output - target).
__device__ __forceinline__ float binary_loss(float z, float out, float target, const YoloHead& h) {
    if (h.newCoords) return 0.5f * (out - target) * (out - target);
    return bce_logit(z, target);
}

template <typename T>
struct HeadView {
    const T* x;
    long long b;
    int cell, a;
    const YoloHead* h;
    __device__ float z(int entry) const {
        return ld(x + (b * h->lw * h->lh + cell) * h->stride + a * (5 + h->classes) + entry);
    }
};

// Darknet's get_yolo_box: {x, y, w, h} relative to the network input.
template <typename T>
__device__ void decode(const HeadView<T>& v, int col, int row, float* box) {
    const YoloHead& h = *v.h;
    int n = h.mask[v.a];
    float aw = h.anchors[2 * n], ah = h.anchors[2 * n + 1];
    float tw = v.z(2), th = v.z(3);
    box[0] = (col + yolo_centre(v.z(0), h)) / h.lw;
    box[1] = (row + yolo_centre(v.z(1), h)) / h.lh;
    if (h.newCoords) {
        box[2] = tw * tw * 4 * aw / h.netW;
        box[3] = th * th * 4 * ah / h.netH;
    } else {
        box[2] = expf(tw) * aw / h.netW;
        box[3] = expf(th) * ah / h.netH;
    }
}

__device__ __forceinline__ float clip_delta(float v, float maxDelta) {
    if (!finite(v)) return 0.f;
    return fmaxf(-maxDelta, fminf(maxDelta, v));
}

// Loss of a centre coordinate whose gradient by the raw input is (output - target) (YoloLoss.centreLoss).
__device__ float centre_loss(float z, float out, float target, const YoloHead& h) {
    float s = h.scaleXY;
    if (h.newCoords) return 0.5f * (out - target) * (out - target) / s;
    float p = (target + 0.5f * (s - 1.f)) / s;
    float entropy = p > 0.f && p < 1.f ? -(p * logf(p) + (1.f - p) * logf(1.f - p)) : 0.f;
    return s * (bce_logit(z, p) - entropy);
}

// The box term of a truth on anchor slot a (anchor n of all) of a cell: dLoss/dz (without the loss scale) added to
// boxGrad[k * 4 ..], the loss returned; pred receives the decoded prediction.
template <typename T>
__device__ float box_term(const HeadView<T>& v, int col, int row, const float* truth, float* boxGrad, long long k,
                          float* pred) {
    const YoloHead& h = *v.h;
    int n = h.mask[v.a];
    float aw = h.anchors[2 * n], ah = h.anchors[2 * n + 1];
    decode(v, col, row, pred);
    float norm = h.iouNormalizer;
    float g[4];
    float loss;
    if (h.iouKind == IOU_MSE) {
        float weight = (2.f - truth[2] * truth[3]) * norm;
        float tx = truth[0] * h.lw - col;
        float ty = truth[1] * h.lh - row;
        float tw, th;
        if (h.newCoords) {
            tw = sqrtf(truth[2] * h.netW / (4 * aw));
            th = sqrtf(truth[3] * h.netH / (4 * ah));
        } else {
            tw = logf(truth[2] * h.netW / aw);
            th = logf(truth[3] * h.netH / ah);
        }
        float ox = yolo_centre(v.z(0), h), oy = yolo_centre(v.z(1), h);
        float zw = v.z(2), zh = v.z(3);
        loss = weight * (centre_loss(v.z(0), ox, tx, h) + centre_loss(v.z(1), oy, ty, h)
                         + 0.5f * (zw - tw) * (zw - tw) + 0.5f * (zh - th) * (zh - th));
        g[0] = weight * (ox - tx);
        g[1] = weight * (oy - ty);
        g[2] = weight * (zw - tw);
        g[3] = weight * (zh - th);
    } else {
        IouGrad r = box_iou_grad(h.iouKind, pred[0], pred[1], pred[2] == 0.f ? 1.f : pred[2],
                                 pred[3] == 0.f ? 1.f : pred[3], truth[0], truth[1], truth[2], truth[3]);
        loss = norm * (1.f - r.value);
        float dw = r.dw, dh = r.dh;
        if (!h.newCoords) {
            dw *= expf(v.z(2));
            dh *= expf(v.z(3));
        }
        g[0] = -clip_delta(norm * r.dx, h.maxDelta);
        g[1] = -clip_delta(norm * r.dy, h.maxDelta);
        g[2] = -clip_delta(norm * dw, h.maxDelta);
        g[3] = -clip_delta(norm * dh, h.maxDelta);
    }
#pragma unroll
    for (int i = 0; i < 4; i++) atomicAdd(&boxGrad[k * 4 + i], g[i]);
    return loss;
}

// delta_yolo_class: the truth's class becomes a positive target of anchor k (a bit; the others are negatives).
__device__ __forceinline__ void set_class(unsigned int* classBits, long long k, int cls, const YoloHead& h) {
    if (cls < 0 || cls >= h.classes) return;
    atomicOr(&classBits[k * h.words + (cls >> 5)], 1u << (cls & 31));
}

__device__ __forceinline__ void add_losses(float box, float assigned, float iouSum, double* loss, float* scratch) {
    float b = block_sum(box, scratch);
    float a = block_sum(assigned, scratch);
    float s = block_sum(iouSum, scratch);
    if (threadIdx.x == 0) {
        if (b != 0.f) atomicAdd(&loss[0], (double) b);
        if (a != 0.f) atomicAdd(&loss[3], (double) a);
        if (s != 0.f) atomicAdd(&loss[4], (double) s);
    }
}

#define ASSIGN_PREDICTIONS_PARAMS(T) (const T* x, const YoloHead* head, const float* truths, const int* counts, \
                                      int maxTruths, int n, float* objTarget, float* objWeight, \
                                      unsigned int* classBits, float* boxGrad, double* loss)

template <typename T>
__device__ void yolo_assign_predictions ASSIGN_PREDICTIONS_PARAMS(T) {
    __shared__ float scratch[256];
    const YoloHead& h = *head;
    int cells = h.lw * h.lh;
    long long total = (long long) n * h.anchorsPerCell * cells;
    float box = 0.f;
    // every thread of the block reaches block_sum: the loop bound is uniform, the work conditional
    for (long long base = (long long) blockIdx.x * blockDim.x; base < total; base += (long long) gridDim.x * blockDim.x) {
        long long k = base + threadIdx.x;   // (image, anchor, cell), cell fastest
        if (k >= total) continue;
        int cell = (int) (k % cells);
        long long rest = k / cells;
        int a = (int) (rest % h.anchorsPerCell);
        long long b = rest / h.anchorsPerCell;
        int col = cell % h.lw, row = cell / h.lw;
        HeadView<T> v = {x, b, cell, a, head};
        float pred[4];
        decode(v, col, row, pred);
        bool classMatch = false;
        for (int c = 0; c < h.classes && !classMatch; c++) classMatch = yolo_out(v.z(5 + c), h) > 0.25f;
        float bestMatch = 0.f, best = 0.f;
        int bestT = -1;
        const float* mine = truths + b * maxTruths * TRUTH_FLOATS;
        for (int t = 0; t < counts[b]; t++) {
            const float* tr = mine + t * TRUTH_FLOATS;
            float iou = box_iou(pred[0], pred[1], pred[2], pred[3], tr[0], tr[1], tr[2], tr[3]);
            if (classMatch && iou > bestMatch) bestMatch = iou;
            if (iou > best) {
                best = iou;
                bestT = t;
            }
        }
        float target = 0.f, weight = h.objNormalizer;
        if (bestMatch > h.ignoreThresh) {
            if (h.objectnessSmooth) target = bestMatch;
            else weight = 0.f;
        }
        if (best > h.truthThresh && bestT >= 0) {
            const float* tr = mine + bestT * TRUTH_FLOATS;
            weight = h.objNormalizer;
            target = h.objectnessSmooth ? best * best : 1.f;
            set_class(classBits, k, (int) tr[4], h);
            float p[4];
            box += box_term(v, col, row, tr, boxGrad, k, p);
        }
        objTarget[k] = target;
        objWeight[k] = weight;
    }
    add_losses(box, 0.f, 0.f, loss, scratch);
}
INSTANTIATE(yolo_assign_predictions, ASSIGN_PREDICTIONS_PARAMS,
            (x, head, truths, counts, maxTruths, n, objTarget, objWeight, classBits, boxGrad, loss))

// IoU of anchor n's shape with the truth's, both centred at the origin.
__device__ __forceinline__ float shape_iou(const YoloHead& h, int n, const float* truth) {
    return box_iou(0.f, 0.f, h.anchors[2 * n] / h.netW, h.anchors[2 * n + 1] / h.netH, 0.f, 0.f, truth[2], truth[3]);
}

#define ASSIGN_TRUTHS_PARAMS(T) (const T* x, const YoloHead* head, const float* truths, const int* counts, \
                                 int maxTruths, int n, float* objTarget, float* objWeight, unsigned int* classBits, \
                                 float* boxGrad, double* loss)

template <typename T>
__device__ void yolo_assign_truths ASSIGN_TRUTHS_PARAMS(T) {
    __shared__ float scratch[256];
    const YoloHead& h = *head;
    int cells = h.lw * h.lh;
    float box = 0.f, assigned = 0.f, iouSum = 0.f;
    long long total = (long long) n * maxTruths;
    for (long long base = (long long) blockIdx.x * blockDim.x; base < total; base += (long long) gridDim.x * blockDim.x) {
        long long i = base + threadIdx.x;   // (image, truth)
        if (i >= total) continue;
        long long b = i / maxTruths;
        int t = (int) (i % maxTruths);
        if (t >= counts[b]) continue;
        const float* tr = truths + i * TRUTH_FLOATS;
        int cls = (int) tr[4];
        if (cls < 0 || cls >= h.classes) continue;
        int col = min(h.lw - 1, max(0, (int) (tr[0] * h.lw)));
        int row = min(h.lh - 1, max(0, (int) (tr[1] * h.lh)));
        int cell = row * h.lw + col;
        float bestIou = 0.f;
        int bestN = 0;
        for (int m = 0; m < h.numAnchors; m++) {
            float iou = shape_iou(h, m, tr);
            if (iou > bestIou) {
                bestIou = iou;
                bestN = m;
            }
        }
        for (int a = 0; a < h.anchorsPerCell; a++) {
            int m = h.mask[a];
            bool take = m == bestN || (h.iouThresh < 1.f && shape_iou(h, m, tr) > h.iouThresh);
            if (!take) continue;
            long long k = (b * h.anchorsPerCell + a) * cells + cell;
            HeadView<T> v = {x, b, cell, a, head};
            float pred[4];
            box += box_term(v, col, row, tr, boxGrad, k, pred);
            assigned += 1.f;
            iouSum += box_iou(pred[0], pred[1], pred[2], pred[3], tr[0], tr[1], tr[2], tr[3]);
            if (h.objectnessSmooth) {
                if (objWeight[k] == 0.f || objTarget[k] == 0.f) {
                    objWeight[k] = h.objNormalizer;
                    objTarget[k] = 1.f;
                }
            } else {
                objWeight[k] = h.objNormalizer;
                objTarget[k] = 1.f;
            }
            set_class(classBits, k, cls, h);
        }
    }
    add_losses(box, assigned, iouSum, loss, scratch);
}
INSTANTIATE(yolo_assign_truths, ASSIGN_TRUTHS_PARAMS,
            (x, head, truths, counts, maxTruths, n, objTarget, objWeight, classBits, boxGrad, loss))

#define FINISH_PARAMS(T) (const T* x, T* dx, const YoloHead* head, int n, const float* objTarget, \
                          const float* objWeight, const unsigned int* classBits, const float* boxGrad, float lossScale, \
                          double* loss)

template <typename T>
__device__ void yolo_finish FINISH_PARAMS(T) {
    __shared__ float scratch[256];
    const YoloHead& h = *head;
    int cells = h.lw * h.lh;
    int entries = 5 + h.classes;
    long long total = (long long) n * h.anchorsPerCell * cells;
    float objectness = 0.f, classification = 0.f;
    float positive = h.labelSmoothEps != 0.f ? 1.f - h.labelSmoothEps + 0.5f * h.labelSmoothEps : 1.f;
    float negative = h.labelSmoothEps != 0.f ? 0.5f * h.labelSmoothEps : 0.f;
    for (long long base = (long long) blockIdx.x * blockDim.x; base < total; base += (long long) gridDim.x * blockDim.x) {
        long long k = base + threadIdx.x;
        if (k >= total) continue;
        int cell = (int) (k % cells);
        long long rest = k / cells;
        int a = (int) (rest % h.anchorsPerCell);
        long long b = rest / h.anchorsPerCell;
        HeadView<T> v = {x, b, cell, a, head};
        T* g = dx + (b * cells + cell) * h.stride + a * entries;
        float w = objWeight[k];
        if (w != 0.f) {
            float z = v.z(4), o = yolo_out(z, h), target = objTarget[k];
            objectness += w * binary_loss(z, o, target, h);
            st(g + 4, ld(g + 4) + lossScale * w * (o - target));
        }
        const unsigned int* bits = classBits + k * h.words;
        bool assigned = false;
        for (int i = 0; i < h.words; i++) assigned = assigned || bits[i] != 0u;
        int positives = 0;
        if (assigned) {
            for (int c = 0; c < h.classes; c++) {
                float z = v.z(5 + c), o = yolo_out(z, h);
                float target = (bits[c >> 5] >> (c & 31)) & 1u ? positive : negative;
                classification += h.clsNormalizer * binary_loss(z, o, target, h);
                st(g + 5 + c, ld(g + 5 + c) + lossScale * h.clsNormalizer * (o - target));
                if (target > o) positives++;
            }
        }
        float divide = h.iouThresh < 1.f && positives > 1 ? (float) positives : 1.f;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            float d = boxGrad[k * 4 + e];
            if (d != 0.f) st(g + e, ld(g + e) + lossScale * d / divide);
        }
    }
    float o = block_sum(objectness, scratch);
    float c = block_sum(classification, scratch);
    if (threadIdx.x == 0) {
        if (o != 0.f) atomicAdd(&loss[1], (double) o);
        if (c != 0.f) atomicAdd(&loss[2], (double) c);
    }
}
INSTANTIATE(yolo_finish, FINISH_PARAMS, (x, dx, head, n, objTarget, objWeight, classBits, boxGrad, lossScale, loss))
