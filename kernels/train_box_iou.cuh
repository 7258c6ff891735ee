// IoU, GIoU, DIoU and CIoU of a predicted box against a truth (centre x, y, size w, h) with their derivatives by the
// prediction's x, y, w, h: io.argus.trainer.loss.BoxIou.of with exactAspect = false, in float.
#pragma once

#define IOU_MSE 0
#define IOU_IOU 1
#define IOU_GIOU 2
#define IOU_DIOU 3
#define IOU_CIOU 4

struct IouGrad {
    float value, iou, dx, dy, dw, dh;
};

// Darknet's box_iou: 0 when the boxes do not overlap.
__device__ __forceinline__ float box_iou(float ax, float ay, float aw, float ah, float bx, float by, float bw,
                                         float bh) {
    float iw = fminf(ax + aw / 2, bx + bw / 2) - fmaxf(ax - aw / 2, bx - bw / 2);
    float ih = fminf(ay + ah / 2, by + bh / 2) - fmaxf(ay - ah / 2, by - bh / 2);
    if (iw <= 0.f || ih <= 0.f) return 0.f;
    float inter = iw * ih;
    float uni = aw * ah + bw * bh - inter;
    return uni <= 0.f ? 0.f : inter / uni;
}

__device__ IouGrad box_iou_grad(int kind, float x, float y, float w, float h, float tx, float ty, float tw, float th) {
    float l = x - w / 2, r = x + w / 2, t = y - h / 2, b = y + h / 2;
    float tl = tx - tw / 2, tr = tx + tw / 2, tt = ty - th / 2, tb = ty + th / 2;
    float iw = fminf(r, tr) - fmaxf(l, tl);
    float ih = fminf(b, tb) - fmaxf(t, tt);
    bool overlap = iw > 0.f && ih > 0.f;
    float inter = overlap ? iw * ih : 0.f;
    float dIdl = overlap && l > tl ? -ih : 0.f;
    float dIdr = overlap && r < tr ? ih : 0.f;
    float dIdt = overlap && t > tt ? -iw : 0.f;
    float dIdb = overlap && b < tb ? iw : 0.f;
    float dIdx = dIdl + dIdr, dIdw = (dIdr - dIdl) / 2;
    float dIdy = dIdt + dIdb, dIdh = (dIdb - dIdt) / 2;
    float uni = w * h + tw * th - inter;
    float dUdx = -dIdx, dUdy = -dIdy, dUdw = h - dIdw, dUdh = w - dIdh;
    float iou = uni > 0.f ? inter / uni : 0.f;
    IouGrad g = {iou, iou, 0.f, 0.f, 0.f, 0.f};
    if (uni > 0.f && overlap) {
        float u2 = uni * uni;
        g.dx = (dIdx * uni - inter * dUdx) / u2;
        g.dy = (dIdy * uni - inter * dUdy) / u2;
        g.dw = (dIdw * uni - inter * dUdw) / u2;
        g.dh = (dIdh * uni - inter * dUdh) / u2;
    }
    if (kind == IOU_IOU) return g;
    float cl = fminf(l, tl), cr = fmaxf(r, tr), ct = fminf(t, tt), cb = fmaxf(b, tb);
    float cw = cr - cl, ch = cb - ct;
    float dCwdl = l < tl ? -1.f : 0.f, dCwdr = r > tr ? 1.f : 0.f;
    float dChdt = t < tt ? -1.f : 0.f, dChdb = b > tb ? 1.f : 0.f;
    float dCwdx = dCwdl + dCwdr, dCwdw = (dCwdr - dCwdl) / 2;
    float dChdy = dChdt + dChdb, dChdh = (dChdb - dChdt) / 2;
    if (kind == IOU_GIOU) {
        float area = cw * ch;
        if (area <= 0.f) return g;
        float a2 = area * area;
        float dCdx = ch * dCwdx, dCdw = ch * dCwdw, dCdy = cw * dChdy, dCdh = cw * dChdh;
        g.value = iou - (area - uni) / area;
        g.dx += (dUdx * area - uni * dCdx) / a2;
        g.dy += (dUdy * area - uni * dCdy) / a2;
        g.dw += (dUdw * area - uni * dCdw) / a2;
        g.dh += (dUdh * area - uni * dCdh) / a2;
        return g;
    }
    float diag = cw * cw + ch * ch;
    if (diag <= 0.f) return g;
    float s = (x - tx) * (x - tx) + (y - ty) * (y - ty);
    float d2 = diag * diag;
    float dDdx = 2 * cw * dCwdx, dDdw = 2 * cw * dCwdw, dDdy = 2 * ch * dChdy, dDdh = 2 * ch * dChdh;
    g.value = iou - s / diag;
    g.dx -= (2 * (x - tx) * diag - s * dDdx) / d2;
    g.dy -= (2 * (y - ty) * diag - s * dDdy) / d2;
    g.dw -= (-s * dDdw) / d2;
    g.dh -= (-s * dDdh) / d2;
    if (kind == IOU_DIOU) return g;
    const float fourOverPi2 = 0.40528473456935108578f;   // 4 / pi^2
    float atanDiff = atanf(tw / th) - atanf(w / h);
    float v = fourOverPi2 * atanDiff * atanDiff;
    float alpha = v / (1.f - iou + v + 0.000001f);
    g.value -= alpha * v;
    g.dw += alpha * 2.f * fourOverPi2 * atanDiff * h;
    g.dh -= alpha * 2.f * fourOverPi2 * atanDiff * w;
    return g;
}
