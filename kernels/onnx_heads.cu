// (f, imported models) The heads of imported ONNX detectors on the GPU, per family, then their decoding into
// candidates for nms.cu (io.argus.detector.cuda.OnnxTailKernel and OnnxPostprocess launch them).
//
// The *_tail kernels compute what the graph's tail computes after its last layers (io.argus.detector.onnx.OnnxTail,
// run on the host by the interpreter otherwise), from the layers' FP16 NHWC outputs to the graph's FP32 output:
//   yolov8_tail (YOLOv8, YOLO11, YOLOv9): per anchor (cell of each level, levels from the finest), DFL: a softmax
//     over `bins` values per side (left, top, right, bottom), their expectation sum j * p_j; anchor point = cell +
//     0.5; centre = (anchor - lt + anchor + rb) / 2 and size = rb + lt, times the level's stride; sigmoid of each
//     class. Output [4 + classes, anchors] per image.
//   yolov5_tail: per (level, anchor a, cell) a row of `no` = 5 + classes: sigmoid of all; x, y = (2 s + cell - 0.5)
//     x stride; w, h = (2 s)^2 x the anchor's size in pixels. Output [rows, no] per image.
//   yolox_tail (YOLOX exported without decoding): the levels' channels laid out as rows of `no`, a sigmoid where
//     the graph applies one (objectness, classes; the lowering usually fused it into the convolutions already).
// These replace graph nodes by assumption, so the host checks each against the graph's own tail on random inputs at
// load and runs the graph's tail instead when they differ.
//
// The decode kernels follow io.argus.detector.onnx.OnnxHead.detections: a candidate per anchor (yolov8: its best class
// over the threshold; rows: objectness over it and some objectness x class over it), its box from input pixels to
// fractions of the source image through the letterbox, per-class scores over the threshold (0 otherwise). The key
// orders candidates as the CPU does (anchor or row index), so nms.cu keeps the same boxes.
#include "common.cuh"

// One level of a head: its feature map (a layer's NHWC FP16 view), grid, stride, first output anchor or row; for
// yolov5 its anchors per cell and their sizes in input pixels. 80 bytes, written by OnnxTailKernel.java.
struct Level {
    long long base;          // address of the view's buffer
    long long imageStride;   // halves per image
    int pixelStride, channelOffset, h, w;
    float stride;
    int start;
    int anchors;
    int pad;
    float anchorSize[8];     // (w, h) of up to 4 anchors
};

__device__ __forceinline__ int level_of(const Level* lv, int levels, int i) {
    int l = 0;
    while (l + 1 < levels && i >= lv[l + 1].start) l++;
    return l;
}

__device__ __forceinline__ const half_t* pixel_of(const Level& l, int b, int cell) {
    return reinterpret_cast<const half_t*>(l.base) + b * l.imageStride + (long long) cell * l.pixelStride
            + l.channelOffset;
}

extern "C" __global__ void yolov8_tail(const Level* lv, int levels, int anchors, int bins, int classes, float* out,
                                       int n) {
    FOR_EACH(t, n * anchors) {
        int b = t / anchors, i = t % anchors;
        Level l = lv[level_of(lv, levels, i)];
        int cell = i - l.start;
        const half_t* p = pixel_of(l, b, cell);
        float d[4];
        for (int s = 0; s < 4; s++) {
            const half_t* q = p + s * bins;
            float m = NEG_INF;
            for (int j = 0; j < bins; j++) m = fmaxf(m, h2f(q[j]));
            float sum = 0.f, weighted = 0.f;
            for (int j = 0; j < bins; j++) {
                float e = expf(h2f(q[j]) - m);
                sum += e;
                weighted += (float) j * e;
            }
            d[s] = weighted / sum;
        }
        float ax = (float) (cell % l.w) + 0.5f, ay = (float) (cell / l.w) + 0.5f;
        float* o = out + (long long) b * (4 + classes) * anchors + i;
        o[0] = ((ax - d[0]) + (ax + d[2])) / 2.f * l.stride;
        o[anchors] = ((ay - d[1]) + (ay + d[3])) / 2.f * l.stride;
        o[2 * (long long) anchors] = (d[2] + d[0]) * l.stride;
        o[3 * (long long) anchors] = (d[3] + d[1]) * l.stride;
        const half_t* c = p + 4 * bins;
        for (int k = 0; k < classes; k++) o[(4 + k) * (long long) anchors] = logistic(h2f(c[k]));
    }
}

// One thread per output value (image, row, field), field fastest: consecutive threads read consecutive channels of a
// pixel and write consecutive floats (a thread per row would write rows of `no` floats apart: uncoalesced, and at
// YOLOv5's 25,200 rows x 85 fields per image most of the network's time).
#define FOR_EACH_VALUE(t, total) \
    for (long long t = (long long) blockIdx.x * blockDim.x + threadIdx.x; t < (total); \
         t += (long long) gridDim.x * blockDim.x)

extern "C" __global__ void yolov5_tail(const Level* lv, int levels, int rows, int no, float* out, int n) {
    FOR_EACH_VALUE(t, (long long) n * rows * no) {
        int f = (int) (t % no);
        long long br = t / no;
        int b = (int) (br / rows), r = (int) (br % rows);
        const Level& l = lv[level_of(lv, levels, r)];
        int local = r - l.start, plane = l.h * l.w;
        int a = local / plane, cell = local % plane;
        float s = logistic(h2f(pixel_of(l, b, cell)[a * no + f]));
        if (f == 0) s = (s * 2.f + ((float) (cell % l.w) - 0.5f)) * l.stride;
        else if (f == 1) s = (s * 2.f + ((float) (cell / l.w) - 0.5f)) * l.stride;
        else if (f < 4) s = (s * 2.f) * (s * 2.f) * l.anchorSize[2 * a + f - 2];
        out[t] = s;
    }
}

// sigmoidFrom: fields f >= sigmoidFrom get a sigmoid, except field 4 (objectness) when objectSigmoid is 0;
// sigmoidFrom = no: none. One thread per output value, as yolov5_tail.
extern "C" __global__ void yolox_tail(const Level* lv, int levels, int rows, int no, int objectSigmoid,
                                      int sigmoidFrom, float* out, int n) {
    FOR_EACH_VALUE(t, (long long) n * rows * no) {
        int f = (int) (t % no);
        long long br = t / no;
        int b = (int) (br / rows), r = (int) (br % rows);
        const Level& l = lv[level_of(lv, levels, r)];
        float v = h2f(pixel_of(l, b, r - l.start)[f]);
        bool sig = f == 4 ? objectSigmoid != 0 : f >= sigmoidFrom;
        out[t] = sig ? logistic(v) : v;
    }
}

// Per image: where the source landed in the input (OnnxInput.Geometry: input pixel = source pixel x gain + pad) and
// the source's size; 32 bytes.
struct OnnxGeometry {
    float gain, padX, padY;
    int imageW, imageH, pad0, pad1, pad2;
};

// A box of input pixels (centre, size) as fractions of the source image, as OnnxInput.Geometry.toImage.
__device__ __forceinline__ void candidate_box(const OnnxGeometry& g, float cx, float cy, float w, float h,
                                              float* box) {
    box[0] = __fdiv_rn(__fdiv_rn(__fsub_rn(cx, g.padX), g.gain), (float) g.imageW);
    box[1] = __fdiv_rn(__fdiv_rn(__fsub_rn(cy, g.padY), g.gain), (float) g.imageH);
    box[2] = __fdiv_rn(__fdiv_rn(w, g.gain), (float) g.imageW);
    box[3] = __fdiv_rn(__fdiv_rn(h, g.gain), (float) g.imageH);
}

// yolov8's output [4 + classes, anchors] per image: a candidate per anchor whose best class score exceeds thresh.
extern "C" __global__ void onnx_decode_yolov8(const float* out, int anchors, int classes, float thresh,
                                              const OnnxGeometry* geometry, float* boxes, int* keys, float* probs,
                                              int* counts, int cap, int n) {
    FOR_EACH(t, n * anchors) {
        int b = t / anchors, i = t % anchors;
        const float* v = out + (long long) b * (4 + classes) * anchors + i;
        float best = 0.f;
        for (int k = 0; k < classes; k++) best = fmaxf(best, v[(4 + k) * (long long) anchors]);
        if (!(best > thresh)) continue;
        int slot = atomicAdd(&counts[b], 1);
        if (slot >= cap) continue;   // the host sees count > cap and decodes this image itself
        long long c = (long long) b * cap + slot;
        candidate_box(geometry[b], v[0], v[anchors], v[2 * (long long) anchors], v[3 * (long long) anchors],
                      boxes + 4 * c);
        keys[c] = i;
        for (int k = 0; k < classes; k++) {
            float p = v[(4 + k) * (long long) anchors];
            probs[c * classes + k] = p > thresh ? p : 0.f;
        }
    }
}

// Rows [rows, 5 + classes] per image (yolov5, decoded yolox; raw yolox with yoloxGrid = 1: the box relative to its
// cell, levels of strides 8, 16 and 32 over the input size): a candidate per row whose objectness and some
// objectness x class score exceed thresh.
extern "C" __global__ void onnx_decode_rows(const float* out, int rows, int no, int classes, int yoloxGrid,
                                            int inputW, int inputH, float thresh, const OnnxGeometry* geometry,
                                            float* boxes, int* keys, float* probs, int* counts, int cap, int n) {
    FOR_EACH(t, n * rows) {
        int b = t / rows, r = t % rows;
        const float* v = out + ((long long) b * rows + r) * no;
        float objectness = v[4];
        if (!(objectness > thresh)) continue;
        bool any = false;
        for (int k = 0; k < classes && !any; k++) any = objectness * v[5 + k] > thresh;
        if (!any) continue;
        float cx = v[0], cy = v[1], w = v[2], h = v[3];
        if (yoloxGrid) {
            int level = 0, levelStart = 0;
            while (level < 2) {
                int s = 8 << level, cells = (inputW / s) * (inputH / s);
                if (r < levelStart + cells) break;
                levelStart += cells;
                level++;
            }
            int stride = 8 << level, gridW = inputW / stride, local = r - levelStart;
            cx = (cx + (float) (local % gridW)) * (float) stride;
            cy = (cy + (float) (local / gridW)) * (float) stride;
            w = expf(w) * (float) stride;
            h = expf(h) * (float) stride;
        }
        int slot = atomicAdd(&counts[b], 1);
        if (slot >= cap) continue;
        long long c = (long long) b * cap + slot;
        candidate_box(geometry[b], cx, cy, w, h, boxes + 4 * c);
        keys[c] = r;
        for (int k = 0; k < classes; k++) {
            float p = objectness * v[5 + k];
            probs[c * classes + k] = p > thresh ? p : 0.f;
        }
    }
}
