package io.argus.detector.onnx;

import io.argus.detector.darknet.Shape;
import io.argus.detector.post.Candidate;
import java.util.List;
import java.util.Random;

/**
 * A family's decoding read straight off the head layers' outputs, instead of running the graph's decoding node by node
 * ({@link OnnxTail}) on every value: a box's class scores and objectness are compared with the threshold as logits
 * (sigmoid(x) > t exactly when x > ln(t / (1 - t))), so only the few anchors above it pay for exponentials. The graph
 * output itself is then computed only when asked for ({@link #fullOutput}, for comparisons).
 *
 * <p>Nothing is assumed blindly. The decoding's constants come from the graph: its tail is run once on zeros (every
 * sigmoid 0.5, every softmax uniform), which gives each anchor's centre and size (YOLOv5) or centre and stride
 * (YOLOv8's DFL); then the decoder's whole output on random head values must equal the tail's within 1e-5 relative L2,
 * or {@link #probe} returns null and the tail does the work (an export with another decoding, another layout).
 */
public abstract sealed class HeadDecoder {
    final int classes;
    final int[] levelSizes;   // cells of each head input (h x w)
    final int anchors;        // rows of the output

    private HeadDecoder(int classes, int[] levelSizes, int anchors) {
        this.classes = classes;
        this.levelSizes = levelSizes;
        this.anchors = anchors;
    }

    /** The decoder for {@code head}'s family when it computes what the tail computes; null otherwise. */
    public static HeadDecoder probe(OnnxHead head, List<Shape> inputs) {
        OnnxTail tail = head.tail();
        float[][] zeros = new float[inputs.size()][];
        for (int i = 0; i < zeros.length; i++) zeros[i] = new float[inputs.get(i).size()];
        OnnxInterpreter.Tensor atZero;
        try {
            atZero = tail.run(zeros).get(0);
        } catch (RuntimeException e) {
            return null;
        }
        HeadDecoder d = switch (head.family()) {
            case YOLOV8 -> Yolov8.of(head.classes(), inputs, atZero);
            case YOLOV5 -> Yolov5.of(head.classes(), inputs, atZero);
            default -> null;
        };
        if (d == null) return null;
        Random random = new Random(7);
        float[][] probe = new float[inputs.size()][];
        for (int i = 0; i < probe.length; i++) {
            probe[i] = new float[inputs.get(i).size()];
            for (int k = 0; k < probe[i].length; k++) probe[i][k] = (float) (random.nextGaussian() * 2);
        }
        float[] expected = tail.run(probe).get(0).data();
        float[] actual = d.fullOutput(probe);
        if (expected.length != actual.length) return null;
        double num = 0, den = 0;
        for (int k = 0; k < expected.length; k++) {
            double e = (double) actual[k] - expected[k];
            num += e * e;
            den += (double) expected[k] * expected[k];
        }
        return Math.sqrt(num / Math.max(den, 1e-30)) <= 1e-5 ? d : null;
    }

    /** The graph's output for one image, computed this decoder's way (what {@link #probe} compares with the tail). */
    public abstract float[] fullOutput(float[][] heads);

    /**
     * Adds the candidates of one image whose score passes {@code threshold}: boxes as fractions of the source image
     * ({@code g}), per class prob (0 below the threshold).
     */
    public abstract void candidates(float[][] heads, float threshold, OnnxInput.Geometry g, List<Candidate> out);

    static float sigmoid(float x) { return (float) (1 / (1 + Math.exp(-x))); }

    /** The logit of a threshold: sigmoid(x) > t exactly when x > this. */
    static float logit(float t) {
        if (t <= 0) return Float.NEGATIVE_INFINITY;
        if (t >= 1) return Float.POSITIVE_INFINITY;
        return (float) Math.log(t / (1 - t));
    }

    /** Anchor {@code i} as (head input, cell) from the level sizes. */
    final int level(int i) {
        int k = 0;
        while (i >= levelSizes[k]) i -= levelSizes[k++];
        return k;
    }

    /**
     * YOLOv8/YOLO11/YOLOv9: each head input is [4 x 16 DFL bins + classes, h, w]; output [4 + classes, anchors] of
     * centre x, y, width, height (input pixels) and class sigmoids. Box side s = sum_b softmax(bins)_b x b, then
     * x = cx + (r - l) / 2 x stride, w = (l + r) x stride.
     */
    static final class Yolov8 extends HeadDecoder {
        private static final int BINS = 16;
        private final float[] cx, cy, stride;     // per anchor

        private Yolov8(int classes, int[] levelSizes, float[] cx, float[] cy, float[] stride) {
            super(classes, levelSizes, cx.length);
            this.cx = cx;
            this.cy = cy;
            this.stride = stride;
        }

        static Yolov8 of(int classes, List<Shape> inputs, OnnxInterpreter.Tensor atZero) {
            int[] sizes = new int[inputs.size()];
            int total = 0;
            for (int i = 0; i < sizes.length; i++) {
                if (inputs.get(i).channels() != 4 * BINS + classes) return null;
                sizes[i] = inputs.get(i).plane();
                total += sizes[i];
            }
            long[] s = atZero.shape();
            if (s.length != 3 || s[1] != 4 + classes || s[2] != total) return null;
            float[] v = atZero.data();
            float[] cx = new float[total], cy = new float[total], stride = new float[total];
            for (int a = 0; a < total; a++) {
                cx[a] = v[a];
                cy[a] = v[total + a];
                stride[a] = v[2 * total + a] / (2 * 7.5f);   // uniform bins: each side 7.5, width (l + r) x stride
            }
            return new Yolov8(classes, sizes, cx, cy, stride);
        }

        /** Side {@code side}'s expected bin at cell {@code cell} of a head input of {@code plane} cells. */
        private static float side(float[] h, int side, int cell, int plane) {
            int base = side * BINS * plane + cell;
            float max = Float.NEGATIVE_INFINITY;
            for (int b = 0; b < BINS; b++) max = Math.max(max, h[base + b * plane]);
            double sum = 0, weighted = 0;
            for (int b = 0; b < BINS; b++) {
                double e = Math.exp(h[base + b * plane] - max);
                sum += e;
                weighted += e * b;
            }
            return (float) (weighted / sum);
        }

        private void box(float[] h, int cell, int plane, int a, float[] out) {
            float l = side(h, 0, cell, plane), t = side(h, 1, cell, plane), r = side(h, 2, cell, plane),
                    b = side(h, 3, cell, plane);
            out[0] = cx[a] + (r - l) / 2 * stride[a];
            out[1] = cy[a] + (b - t) / 2 * stride[a];
            out[2] = (l + r) * stride[a];
            out[3] = (t + b) * stride[a];
        }

        @Override
        public float[] fullOutput(float[][] heads) {
            float[] out = new float[(4 + classes) * anchors];
            float[] box = new float[4];
            int a = 0;
            for (int k = 0; k < heads.length; k++) {
                int plane = levelSizes[k];
                for (int cell = 0; cell < plane; cell++, a++) {
                    box(heads[k], cell, plane, a, box);
                    for (int j = 0; j < 4; j++) out[j * anchors + a] = box[j];
                    for (int c = 0; c < classes; c++) {
                        out[(4 + c) * anchors + a] = sigmoid(heads[k][(4 * BINS + c) * plane + cell]);
                    }
                }
            }
            return out;
        }

        @Override
        public void candidates(float[][] heads, float threshold, OnnxInput.Geometry g, List<Candidate> out) {
            float cut = logit(threshold);
            float[] box = new float[4];
            int a = 0;
            for (int k = 0; k < heads.length; k++) {
                float[] h = heads[k];
                int plane = levelSizes[k];
                for (int cell = 0; cell < plane; cell++, a++) {
                    float[] prob = null;
                    float best = 0;
                    for (int c = 0; c < classes; c++) {
                        float x = h[(4 * BINS + c) * plane + cell];
                        if (!(x > cut)) continue;
                        if (prob == null) prob = new float[classes];
                        float p = sigmoid(x);
                        if (p > threshold) {
                            prob[c] = p;
                            best = Math.max(best, p);
                        }
                    }
                    if (prob == null || best == 0) continue;
                    box(h, cell, plane, a, box);
                    float[] r = g.toImage(box[0], box[1], box[2], box[3]);
                    out.add(new Candidate(r[0], r[1], r[2], r[3], best, prob));
                }
            }
        }
    }

    /**
     * YOLOv5: each head input is [3 anchors x (5 + classes), h, w]; output [anchors x cells of every level, 5 + classes]
     * of centre x, y, width, height (input pixels), objectness and class sigmoids, rows by level, anchor, row, column.
     * xy = (2 sigmoid - 0.5 + cell) x stride, wh = (2 sigmoid)^2 x anchor: at zero, the anchor's centre (cell + 0.5) x
     * stride and its size, which the probe reads off.
     */
    static final class Yolov5 extends HeadDecoder {
        private final int perCell;          // anchors per cell
        private final float[] cx, cy, aw, ah, stride;   // per output row

        private Yolov5(int classes, int[] levelSizes, int perCell, float[] cx, float[] cy, float[] aw, float[] ah,
                       float[] stride) {
            super(classes, levelSizes, cx.length);
            this.perCell = perCell;
            this.cx = cx;
            this.cy = cy;
            this.aw = aw;
            this.ah = ah;
            this.stride = stride;
        }

        static Yolov5 of(int classes, List<Shape> inputs, OnnxInterpreter.Tensor atZero) {
            int entries = 5 + classes;
            int[] sizes = new int[inputs.size()];
            int rows = 0, perCell = -1;
            for (int i = 0; i < sizes.length; i++) {
                Shape s = inputs.get(i);
                if (s.channels() % entries != 0) return null;
                int na = s.channels() / entries;
                if (perCell >= 0 && na != perCell) return null;
                perCell = na;
                sizes[i] = s.plane();
                rows += na * s.plane();
            }
            long[] s = atZero.shape();
            if (s.length != 3 || s[1] != rows || s[2] != entries) return null;
            float[] v = atZero.data();
            float[] cx = new float[rows], cy = new float[rows], aw = new float[rows], ah = new float[rows],
                    stride = new float[rows];
            int row = 0;
            for (int k = 0; k < sizes.length; k++) {
                int width = inputs.get(k).width();
                for (int r = 0; r < perCell * sizes[k]; r++, row++) {
                    int o = row * entries;
                    cx[row] = v[o];
                    cy[row] = v[o + 1];
                    aw[row] = v[o + 2];
                    ah[row] = v[o + 3];
                    int cell = r % sizes[k];
                    stride[row] = cx[row] / (cell % width + 0.5f);
                }
            }
            return new Yolov5(classes, sizes, perCell, cx, cy, aw, ah, stride);
        }

        private float value(float[] h, int anchor, int entry, int cell, int plane) {
            return h[(anchor * (5 + classes) + entry) * plane + cell];
        }

        @Override
        public float[] fullOutput(float[][] heads) {
            int entries = 5 + classes;
            float[] out = new float[anchors * entries];
            int row = 0;
            for (int k = 0; k < heads.length; k++) {
                int plane = levelSizes[k];
                for (int a = 0; a < perCell; a++) {
                    for (int cell = 0; cell < plane; cell++, row++) {
                        int o = row * entries;
                        decodeBox(heads[k], a, cell, plane, row, out, o);
                        for (int e = 4; e < entries; e++) out[o + e] = sigmoid(value(heads[k], a, e, cell, plane));
                    }
                }
            }
            return out;
        }

        private void decodeBox(float[] h, int a, int cell, int plane, int row, float[] out, int o) {
            float sx = sigmoid(value(h, a, 0, cell, plane)), sy = sigmoid(value(h, a, 1, cell, plane));
            float sw = sigmoid(value(h, a, 2, cell, plane)), sh = sigmoid(value(h, a, 3, cell, plane));
            out[o] = cx[row] + (2 * sx - 1) * stride[row];
            out[o + 1] = cy[row] + (2 * sy - 1) * stride[row];
            out[o + 2] = 4 * sw * sw * aw[row];
            out[o + 3] = 4 * sh * sh * ah[row];
        }

        @Override
        public void candidates(float[][] heads, float threshold, OnnxInput.Geometry g, List<Candidate> out) {
            float cut = logit(threshold);
            float[] box = new float[4];
            int row = 0;
            for (int k = 0; k < heads.length; k++) {
                float[] h = heads[k];
                int plane = levelSizes[k];
                for (int a = 0; a < perCell; a++) {
                    for (int cell = 0; cell < plane; cell++, row++) {
                        float x = value(h, a, 4, cell, plane);
                        if (!(x > cut)) continue;                      // objectness x class <= objectness
                        float objectness = sigmoid(x);
                        float[] prob = null;
                        for (int c = 0; c < classes; c++) {
                            float p = objectness * sigmoid(value(h, a, 5 + c, cell, plane));
                            if (p > threshold) {
                                if (prob == null) prob = new float[classes];
                                prob[c] = p;
                            }
                        }
                        if (prob == null) continue;
                        decodeBox(h, a, cell, plane, row, box, 0);
                        float[] r = g.toImage(box[0], box[1], box[2], box[3]);
                        out.add(new Candidate(r[0], r[1], r[2], r[3], objectness, prob));
                    }
                }
            }
        }
    }
}
