// [yolo] forward (io.argus.detector.cuda.layers.Yolo): the head convolution's NHWC output (half or float) to FP32 in
// Darknet's layout [anchor][x, y, w, h, objectness, classes...][row][col], logistic on x, y, objectness and classes
// (not with new_coords, where the convolution already applied it), x and y scaled by scale_x_y around 0.5, as
// io.argus.detector.cpu.YoloLayer. The training loss (train_yolo_loss.cu) applies the same activation to the raw
// input itself. 64-bit indices, one 64-bit division per element.
#include "train_common.cuh"

#define YOLO_PARAMS(T) (VIEW_PARAMS(const T, in), float* out, int anchors, int entries, int plane, int newCoords, \
                        float scale, int n)

template <typename T>
__device__ void yolo_activate YOLO_PARAMS(T) {
    int perImage = anchors * entries * plane;
    float shift = -0.5f * (scale - 1.f);
    FOR_EACH_LONG(t, (long long) n * perImage) {
        long long b = t / perImage;
        int r = (int) (t - b * perImage);
        int p = r % plane;
        int ae = r / plane;
        int e = ae % entries;
        float v = ld(in + vat(b, inImage, p, inPixel, inOffset, ae));
        if (!newCoords && (e < 2 || e >= 4)) v = logistic(v);
        if (e < 2 && scale != 1.f) v = v * scale + shift;
        out[t] = v;
    }
}
INSTANTIATE(yolo_activate, YOLO_PARAMS, (in, inImage, inPixel, inOffset, out, anchors, entries, plane, newCoords,
        scale, n))
