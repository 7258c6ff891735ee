package io.argus.detector.peers;

import io.argus.detector.Box;
import io.argus.detector.darknet.YoloSpec;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.global.opencv_dnn;
import org.bytedeco.opencv.opencv_core.Rect2d;
import org.bytedeco.opencv.opencv_core.Rect2dVector;

/**
 * Test-side code in OpenCV's region-layer layout (one row per cell and anchor: x, y, w, h relative to the input,
 * objectness, objectness x class), written independently of the engine's decoder: converts our [yolo] outputs to
 * it, and turns such rows into final detections with OpenCV's own NMSBoxes.
 */
public final class RegionOutputs {
    private RegionOutputs() {}

    /** Our activated [yolo] output of one image (Darknet layout) in OpenCV's row layout. */
    public static float[] fromDarknetLayout(YoloSpec head, float[] out, int netW, int netH) {
        int lw = head.output().width();
        int lh = head.output().height();
        int plane = lw * lh;
        int anchors = head.anchorsPerCell();
        int cell = head.entries();
        float[] rows = new float[plane * anchors * cell];
        for (int y = 0; y < lh; y++) {
            for (int x = 0; x < lw; x++) {
                for (int a = 0; a < anchors; a++) {
                    int r = ((y * lw + x) * anchors + a) * cell;
                    int base = a * cell * plane + y * lw + x;
                    float tw = out[base + 2 * plane];
                    float th = out[base + 3 * plane];
                    rows[r] = (x + out[base]) / lw;
                    rows[r + 1] = (y + out[base + plane]) / lh;
                    if (head.newCoords()) {
                        rows[r + 2] = tw * tw * 4 * head.anchorWidth(a) / netW;
                        rows[r + 3] = th * th * 4 * head.anchorHeight(a) / netH;
                    } else {
                        rows[r + 2] = (float) Math.exp(tw) * head.anchorWidth(a) / netW;
                        rows[r + 3] = (float) Math.exp(th) * head.anchorHeight(a) / netH;
                    }
                    float obj = out[base + 4 * plane];
                    rows[r + 4] = obj;
                    for (int k = 0; k < head.classes(); k++) {
                        float p = obj * out[base + (5 + k) * plane];
                        rows[r + 5 + k] = p > 0 ? p : 0;
                    }
                }
            }
        }
        return rows;
    }

    public record Found(int classId, float confidence, Box box) {}

    /**
     * Final detections from region rows of all heads of one image: candidates with objectness and class score above
     * the threshold, per-class NMS by OpenCV's NMSBoxes, boxes mapped to source pixels (letterbox-aware) and clipped.
     */
    public static List<Found> detections(List<float[]> heads, int classes, float thresh, float nms, int netW, int netH,
                                         int imageW, int imageH, boolean letterbox) {
        List<float[]> boxes = new ArrayList<>();   // x, y, w, h in image-relative units
        List<float[]> scores = new ArrayList<>();
        int cell = 5 + classes;
        // letterbox geometry, computed here from Darknet's rule (independently of InputGeometry)
        double newW = netW;
        double newH = netH;
        if (letterbox) {
            if ((float) netW / imageW < (float) netH / imageH) {
                newW = netW;
                newH = imageH * netW / imageW;
            } else {
                newH = netH;
                newW = imageW * netH / imageH;
            }
        }
        for (float[] rows : heads) {
            for (int r = 0; r < rows.length / cell; r++) {
                int o = r * cell;
                if (!(rows[o + 4] > thresh)) continue;
                double x = (rows[o] - (netW - newW) / 2.0 / netW) * netW / newW;
                double y = (rows[o + 1] - (netH - newH) / 2.0 / netH) * netH / newH;
                double w = rows[o + 2] * netW / newW;
                double h = rows[o + 3] * netH / newH;
                boxes.add(new float[] {(float) x, (float) y, (float) w, (float) h});
                float[] s = new float[classes];
                for (int k = 0; k < classes; k++) s[k] = rows[o + 5 + k] > thresh ? rows[o + 5 + k] : 0;
                scores.add(s);
            }
        }
        List<Found> out = new ArrayList<>();
        if (boxes.isEmpty()) return out;
        try (Rect2dVector rects = new Rect2dVector()) {
            for (float[] b : boxes) rects.push_back(new Rect2d(b[0] - b[2] / 2, b[1] - b[3] / 2, b[2], b[3]));
            for (int k = 0; k < classes; k++) {
                float[] s = new float[boxes.size()];
                boolean any = false;
                for (int i = 0; i < s.length; i++) {
                    s[i] = scores.get(i)[k];
                    any |= s[i] > thresh;
                }
                if (!any) continue;
                try (FloatPointer sp = new FloatPointer(s); IntPointer idx = new IntPointer()) {
                    opencv_dnn.NMSBoxes(rects, sp, thresh, nms, idx, 1f, 0);
                    for (long j = 0; j < idx.limit(); j++) {
                        int i = idx.get(j);
                        float[] b = boxes.get(i);
                        float left = clamp((b[0] - b[2] / 2) * imageW, imageW);
                        float right = clamp((b[0] + b[2] / 2) * imageW, imageW);
                        float top = clamp((b[1] - b[3] / 2) * imageH, imageH);
                        float bottom = clamp((b[1] + b[3] / 2) * imageH, imageH);
                        out.add(new Found(k, s[i], new Box(left, top, right - left, bottom - top)));
                    }
                }
            }
        }
        return out;
    }

    private static float clamp(float v, int max) {
        return Math.max(0, Math.min(max, v));
    }

    /** ||a - b|| / ||b|| */
    public static double relativeL2(float[] a, float[] b) {
        if (a.length != b.length) throw new IllegalArgumentException("lengths " + a.length + " vs " + b.length);
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            double d = (double) a[i] - b[i];
            num += d * d;
            den += (double) b[i] * b[i];
        }
        return Math.sqrt(num / Math.max(den, 1e-30));
    }
}
