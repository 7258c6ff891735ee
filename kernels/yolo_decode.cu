// (f, part 1) YOLO decode + confidence filter on the GPU, as Darknet's get_yolo_detections and
// io.argus.detector.post.YoloDecoder: every anchor whose objectness exceeds the threshold becomes a candidate box
// relative to the source image, with per-class prob = objectness x class score (0 where not above the threshold).
#include "common.cuh"

// Per image: network input size, source size and where the source landed (InputGeometry.java); 32 bytes.
struct Geometry {
    int netW, netH, imageW, imageH, resizedW, resizedH, pad0, pad1;
};

// key orders candidates as the CPU does (head, anchor, cell): keyBase + anchor * plane + cell.
extern "C" __global__ void yolo_decode(const float* head, int anchors, int entries, int lw, int lh, int classes,
                                       const float* anchorSizes, int newCoords, int keyBase, float thresh,
                                       const Geometry* geometry, float* boxes, int* keys, float* probs,
                                       int* counts, int cap, int n) {
    int plane = lw * lh;
    int perImage = anchors * entries * plane;
    FOR_EACH(t, n * anchors * plane) {
        int cell = t % plane;
        int a = (t / plane) % anchors;
        int b = t / (anchors * plane);
        const float* base = head + (long long) b * perImage + (long long) a * entries * plane;
        float objectness = base[4 * plane + cell];
        if (!(objectness > thresh)) continue;
        int slot = atomicAdd(&counts[b], 1);
        if (slot >= cap) continue;   // the host sees count > cap and decodes this image on the CPU
        Geometry g = geometry[b];
        int col = cell % lw, row = cell / lw;
        float x = (col + base[cell]) / lw;
        float y = (row + base[plane + cell]) / lh;
        float tw = base[2 * plane + cell], th = base[3 * plane + cell];
        float aw = anchorSizes[2 * a], ah = anchorSizes[2 * a + 1];
        float w, h;
        if (newCoords) {
            w = tw * tw * 4 * aw / g.netW;
            h = th * th * 4 * ah / g.netH;
        } else {
            w = expf(tw) * aw / g.netW;
            h = expf(th) * ah / g.netH;
        }
        // correct_yolo_boxes: from the network input back to the source image
        float deltaW = (float) (g.netW - g.resizedW), deltaH = (float) (g.netH - g.resizedH);
        float ratioW = (float) g.resizedW / g.netW, ratioH = (float) g.resizedH / g.netH;
        long long c = (long long) b * cap + slot;
        boxes[4 * c] = (x - deltaW / 2.f / g.netW) / ratioW;
        boxes[4 * c + 1] = (y - deltaH / 2.f / g.netH) / ratioH;
        boxes[4 * c + 2] = w * g.netW / g.resizedW;
        boxes[4 * c + 3] = h * g.netH / g.resizedH;
        keys[c] = keyBase + a * plane + cell;
        for (int k = 0; k < classes; k++) {
            float p = objectness * base[(5 + k) * plane + cell];
            probs[c * classes + k] = p > thresh ? p : 0.f;
        }
    }
}
