package io.argus.detector.post;

/**
 * A decoded box before NMS, as Darknet's {@code detection}: centre x, y and size w, h relative to the source image
 * (0..1), objectness, and per class prob = objectness x class score (0 where below the threshold).
 */
public final class Candidate {
    public float x;
    public float y;
    public float w;
    public float h;
    public final float objectness;
    public final float[] prob;

    public Candidate(float x, float y, float w, float h, float objectness, float[] prob) {
        this.x = x;
        this.y = y;
        this.w = w;
        this.h = h;
        this.objectness = objectness;
        this.prob = prob;
    }

    /** Darknet's box_iou on centre/size boxes. */
    public static float iou(Candidate a, Candidate b) {
        float inter = overlap(a.x, a.w, b.x, b.w) * overlap(a.y, a.h, b.y, b.h);
        if (overlap(a.x, a.w, b.x, b.w) <= 0 || overlap(a.y, a.h, b.y, b.h) <= 0) return 0;
        float union = a.w * a.h + b.w * b.h - inter;
        return union == 0 ? 0 : inter / union;
    }

    private static float overlap(float c1, float s1, float c2, float s2) {
        float l = Math.max(c1 - s1 / 2, c2 - s2 / 2);
        float r = Math.min(c1 + s1 / 2, c2 + s2 / 2);
        return r - l;
    }

    /** IoU minus the normalised centre distance (d/c)^beta: Darknet's box_diou (beta 0.6) and box_diounms. */
    public static float diou(Candidate a, Candidate b, float beta) {
        float top = Math.min(a.y - a.h / 2, b.y - b.h / 2);
        float bot = Math.max(a.y + a.h / 2, b.y + b.h / 2);
        float left = Math.min(a.x - a.w / 2, b.x - b.w / 2);
        float right = Math.max(a.x + a.w / 2, b.x + b.w / 2);
        float cw = right - left;
        float ch = bot - top;
        float c = cw * cw + ch * ch;
        float iou = iou(a, b);
        if (c == 0) return iou;
        float d = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
        return iou - (float) Math.pow(d / c, beta);
    }
}
