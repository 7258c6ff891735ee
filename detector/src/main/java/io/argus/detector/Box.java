package io.argus.detector;

/** An axis-aligned box in source-image pixels: left, top, width, height. */
public record Box(float x, float y, float w, float h) {
    public float right() { return x + w; }

    public float bottom() { return y + h; }

    public float area() { return Math.max(0, w) * Math.max(0, h); }

    public float iou(Box o) {
        float iw = Math.min(right(), o.right()) - Math.max(x, o.x);
        float ih = Math.min(bottom(), o.bottom()) - Math.max(y, o.y);
        if (iw <= 0 || ih <= 0) return 0;
        float inter = iw * ih;
        return inter / (area() + o.area() - inter);
    }
}
