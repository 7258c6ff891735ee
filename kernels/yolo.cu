// [yolo] forward: the head convolution's FP16 NHWC output to FP32 in Darknet's layout
// [anchor][x, y, w, h, objectness, classes...][row][col], logistic on x, y, objectness and classes (not with
// new_coords, where the convolution already applied it), x and y scaled by scale_x_y around 0.5.
#include "common.cuh"

extern "C" __global__ void yolo_activate(const half_t* in, long long inImage, int inPixel, int inOffset,
                                         float* out, int anchors, int entries, int plane, int newCoords,
                                         float scale, int n) {
    int perImage = anchors * entries * plane;
    float shift = -0.5f * (scale - 1.f);
    FOR_EACH(t, n * perImage) {
        int p = t % plane;
        int ae = (t / plane) % (anchors * entries);
        int b = t / perImage;
        int e = ae % entries;
        float v = h2f(in[at(b, inImage, p, inPixel, inOffset, ae)]);
        if (!newCoords && (e < 2 || e >= 4)) v = logistic(v);
        if (e < 2 && scale != 1.f) v = v * scale + shift;
        out[t] = v;
    }
}
