package io.argus.detector.cuda;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Measures for GPU-vs-CPU tests: relative L2 error of tensors and one-to-one matching of detections. */
final class Compare {
    private Compare() {}

    /**
     * The CPU reference's options: FP32 on oneDNN's first implementation of each convolution, untimed, without our
     * Winograd. Every implementation computes the same to ~1e-6 (EveryImplementationTest), far inside these tests'
     * FP16 bounds, while tuning each layer at every batch size (our Winograd's warm-ups included) made the CPU side of
     * the batch-64 parity test take minutes on a GPU host.
     */
    static final io.argus.detector.cpu.CpuOptions REFERENCE = new io.argus.detector.cpu.CpuOptions(
            io.argus.detector.cpu.CpuPrecision.FP32, false, null, null, io.argus.detector.cpu.WinogradPolicy.OFF);

    /** ||a - ref|| / ||ref||; NaN anywhere gives +infinity. */
    static double relativeL2(float[] a, float[] ref) {
        if (a.length != ref.length) throw new IllegalArgumentException(a.length + " vs " + ref.length + " values");
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            if (Float.isNaN(a[i]) || Float.isInfinite(a[i])) return Double.POSITIVE_INFINITY;
            double d = (double) a[i] - ref[i];
            num += d * d;
            den += (double) ref[i] * ref[i];
        }
        return den == 0 ? Math.sqrt(num) : Math.sqrt(num / den);
    }

    static float iou(Box a, Box b) {
        float ix = Math.min(a.x() + a.w(), b.x() + b.w()) - Math.max(a.x(), b.x());
        float iy = Math.min(a.y() + a.h(), b.y() + b.h()) - Math.max(a.y(), b.y());
        if (ix <= 0 || iy <= 0) return 0;
        float inter = ix * iy;
        return inter / (a.w() * a.h() + b.w() * b.h() - inter);
    }

    /**
     * Two boxes of which one is thin (under 8 px wide or high: clipped to the border, or a random head's sliver),
     * where a tenth of a pixel moves IoU by several percent, and whose corners agree within 1 px plus 2.5% of the
     * longer side (the edge shift IoU >= 0.95 allows a square box of that side); for two empty boxes, 2.5% of the
     * farthest coordinate they reach.
     */
    static boolean sliver(Box a, Box b) {
        if (Math.min(Math.min(a.w(), a.h()), Math.min(b.w(), b.h())) >= 8) return false;
        float side = Math.max(Math.max(a.w(), a.h()), Math.max(b.w(), b.h()));
        if (empty(a) && empty(b)) {
            // both wholly outside the picture, clipped onto its border: their raw corners lie beyond it, where FP16
            // rounding is relative to coordinates as large as the picture, so 2.5% of how far they reach
            side = Math.max(side, Math.max(Math.max(a.x() + a.w(), a.y() + a.h()), Math.max(b.x() + b.w(), b.y() + b.h())));
        }
        return maxCornerDistance(a, b) <= 1 + 0.025f * side;
    }

    /** A box of no area: wholly outside the picture and clipped onto its border. */
    static boolean empty(Box b) { return b.w() <= 0 || b.h() <= 0; }

    /** Largest difference of the two boxes' corner coordinates, in pixels (also for empty, clipped boxes). */
    static float maxCornerDistance(Box a, Box b) {
        return Math.max(Math.max(Math.abs(a.x() - b.x()), Math.abs(a.y() - b.y())),
                Math.max(Math.abs(a.x() + a.w() - b.x() - b.w()), Math.abs(a.y() + a.h() - b.y() - b.h())));
    }

    /**
     * Detections of {@code a} with confidence at least {@code minConfidence} that {@code b} lacks: no detection of
     * the same class with IoU >= {@code minIou} (or, for thin boxes, see {@link #sliver}). Not counted: a detection
     * that {@code b} may rightly have suppressed in its NMS, because {@code b} holds a box of the same class
     * overlapping it past the NMS threshold (less 0.01) whose confidence is at least its own less 0.01: which of two
     * such boxes survives NMS can flip within FP16 rounding.
     */
    static List<String> unmatched(List<Detection> a, List<Detection> b, float minConfidence, float minIou, float nms) {
        List<String> missing = new ArrayList<>();
        for (Detection d : a) {
            if (d.confidence() < minConfidence) continue;
            float best = 0;
            boolean matched = false;
            boolean suppressible = false;
            for (Detection e : b) {
                if (e.classId() != d.classId()) continue;
                float iou = iou(d.box(), e.box());
                best = Math.max(best, iou);
                if (iou >= minIou || sliver(d.box(), e.box())) matched = true;
                if (nms > 0 && iou > nms - 0.01f && e.confidence() >= d.confidence() - 0.01f) suppressible = true;
            }
            if (!matched && !suppressible) {
                missing.add(describe(d) + " (best IoU " + String.format(Locale.ROOT, "%.3f", best) + ")");
            }
        }
        return missing;
    }

    /**
     * Two GPUs' detections of the same pictures agree: each GPU plans its own convolution algorithms (cuDNN timed per
     * device), so the same network's outputs differ in the last bits between devices, and so may boxes and scores;
     * what must hold is that every detection {@code threshold + 0.01} or more on one has its match (same class, IoU
     * >= 0.95, or NMS could rightly have picked the other of two) on the other. Returns what does not match, empty
     * when they agree.
     */
    static List<String> disagreements(List<List<Detection>> a, List<List<Detection>> b, float threshold, float nms) {
        List<String> out = new ArrayList<>();
        if (a.size() != b.size()) return List.of(a.size() + " pictures against " + b.size());
        for (int i = 0; i < a.size(); i++) {
            for (String m : unmatched(a.get(i), b.get(i), threshold + 0.01f, 0.95f, nms)) {
                out.add("picture " + i + " only in the first: " + m);
            }
            for (String m : unmatched(b.get(i), a.get(i), threshold + 0.01f, 0.95f, nms)) {
                out.add("picture " + i + " only in the second: " + m);
            }
        }
        return out;
    }

    static String describe(Detection d) {
        Box b = d.box();
        return String.format(Locale.ROOT, "%s %.3f [%.1f %.1f %.1f %.1f]", d.className(), d.confidence(), b.x(), b.y(),
                b.w(), b.h());
    }
}
