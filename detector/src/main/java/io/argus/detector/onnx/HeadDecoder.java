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
    public float[] fullOutput(float[][] heads) {
        float[] out = new float[outputSize()];
        fullOutput(heads, out, 0, anchors);
        return out;
    }

    /** Values of the graph's output for one image. */
    public abstract int outputSize();

    /** Rows {@code from .. to} of the output (anchors): disjoint ranges may run on several threads at once. */
    public abstract void fullOutput(float[][] heads, float[] out, int from, int to);

    /** Rows (anchors) of the output, the range {@link #fullOutput(float[][], float[], int, int)} splits. */
    public int anchors() { return anchors; }

    /**
     * Adds the candidates of one image whose score passes {@code threshold}: boxes as fractions of the source image
     * ({@code g}), per class prob (0 below the threshold).
     */
    public abstract void candidates(float[][] heads, float threshold, OnnxInput.Geometry g, List<Candidate> out);

    static float sigmoid(float x) { return 1f / (1f + exp(-x)); }

    private static final float LOG2E = 1.44269504088896341f, LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f;

    /**
     * e^x in float, within 2 ulp of the exact value (Cephes' expf: x = n ln 2 + r with ln 2 split in two for an exact
     * reduction, e^r by a degree-6 polynomial on |r| <= ln 2 / 2, 2^n into the exponent bits). About four times faster
     * than {@link Math#exp} here: the decoding takes an exponential per class score and DFL bin of every anchor.
     */
    static float exp(float x) {
        if (x > 88.3762626647949f) return Float.POSITIVE_INFINITY;
        if (x < -87.3365447504f) return 0f;
        float n = (float) Math.floor(x * LOG2E + 0.5f);
        return expReduced(x - n * LN2_HI - n * LN2_LO) * Float.intBitsToFloat(((int) n + 127) << 23);
    }

    /** e^r for |r| <= ln 2 / 2 (Cephes' polynomial); small enough for the JIT to inline into vectorised loops. */
    private static float expReduced(float r) {
        float p = 1.9875691500e-4f;
        p = p * r + 1.3981999507e-3f;
        p = p * r + 8.3334519073e-3f;
        p = p * r + 4.1665795894e-2f;
        p = p * r + 1.6666665459e-1f;
        p = p * r + 5.0000001201e-1f;
        return p * r * r + r + 1f;
    }

    /**
     * {@code x[0..n)} replaced by e^x, the same polynomial as {@link #exp} written so that HotSpot turns both loops into
     * SIMD code (about six times faster per value than calling {@link #exp} in a loop): the clamp to [-87.33, 88.37]
     * keeps 2^n a normal float (below it the result is e^-87.33 = 1.18e-38 instead of 0, above it e^88.37 = 2.4e38
     * instead of infinity: a sigmoid or softmax of either is the same to float precision), n is rounded with the
     * 1.5 x 2^23 trick, and 2^n is built in a second loop (one loop that mixes the two does not vectorize).
     * {@code k}: scratch of n.
     */
    static void expInPlace(float[] x, float[] k, int n) {
        for (int i = 0; i < n; i++) {
            float v = Math.min(Math.max(x[i], -87.33f), 88.37f);
            float m = (v * LOG2E + 12582912f) - 12582912f;
            x[i] = expReduced(v - m * LN2_HI - m * LN2_LO);
            k[i] = m;
        }
        for (int i = 0; i < n; i++) x[i] *= Float.intBitsToFloat(((int) k[i] + 127) << 23);
    }

    /** {@code out[o..o+n)} = sigmoid of {@code in[s..s+n)} through {@link #expInPlace}; t and k: scratch of n. */
    static void sigmoids(float[] in, int s, float[] out, int o, int n, float[] t, float[] k) {
        for (int i = 0; i < n; i++) t[i] = -in[s + i];
        expInPlace(t, k, n);
        for (int i = 0; i < n; i++) out[o + i] = 1f / (1f + t[i]);
    }

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
            float sum = 0, weighted = 0;
            for (int b = 0; b < BINS; b++) {
                float e = exp(h[base + b * plane] - max);
                sum += e;
                weighted += e * b;
            }
            return weighted / sum;
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
        public int outputSize() { return (4 + classes) * anchors; }

        @Override
        public void fullOutput(float[][] heads, float[] out, int from, int to) {
            // level by level, channel by channel over contiguous cells: every loop reads and writes memory in order
            int start = 0;
            for (int k = 0; k < heads.length; k++) {
                int plane = levelSizes[k];
                int c0 = Math.max(from - start, 0), c1 = Math.min(to - start, plane);
                if (c0 < c1) level(heads[k], plane, start, c0, c1, out);
                start += plane;
            }
        }

        private void level(float[] h, int plane, int aStart, int c0, int c1, float[] out) {
            int n = c1 - c0;
            float[] e = new float[n], k = new float[n];
            for (int c = 0; c < classes; c++) {
                int src = (4 * BINS + c) * plane, dst = (4 + c) * anchors + aStart;
                sigmoids(h, src + c0, out, dst + c0, n, e, k);
            }
            float[][] sides = new float[4][n];
            float[] max = new float[n], sum = new float[n], weighted = new float[n];
            for (int side = 0; side < 4; side++) {
                int base = side * BINS * plane;
                java.util.Arrays.fill(max, Float.NEGATIVE_INFINITY);
                for (int b = 0; b < BINS; b++) {
                    int src = base + b * plane + c0;
                    for (int i = 0; i < n; i++) max[i] = Math.max(max[i], h[src + i]);
                }
                java.util.Arrays.fill(sum, 0f);
                java.util.Arrays.fill(weighted, 0f);
                for (int b = 0; b < BINS; b++) {
                    int src = base + b * plane + c0;
                    for (int i = 0; i < n; i++) e[i] = h[src + i] - max[i];
                    expInPlace(e, k, n);
                    for (int i = 0; i < n; i++) {
                        sum[i] += e[i];
                        weighted[i] += e[i] * b;
                    }
                }
                float[] d = sides[side];
                for (int i = 0; i < n; i++) d[i] = weighted[i] / sum[i];
            }
            float[] l = sides[0], t = sides[1], r = sides[2], b = sides[3];
            for (int i = 0; i < n; i++) {
                int a = aStart + c0 + i;
                out[a] = cx[a] + (r[i] - l[i]) / 2 * stride[a];
                out[anchors + a] = cy[a] + (b[i] - t[i]) / 2 * stride[a];
                out[2 * anchors + a] = (l[i] + r[i]) * stride[a];
                out[3 * anchors + a] = (t[i] + b[i]) * stride[a];
            }
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
        public int outputSize() { return anchors * (5 + classes); }

        @Override
        public void fullOutput(float[][] heads, float[] out, int from, int to) {
            // per level and anchor, entry by entry over contiguous cells (the output rows are cells, entries across)
            int entries = 5 + classes, start = 0;
            for (int k = 0; k < heads.length; k++) {
                int plane = levelSizes[k];
                for (int a = 0; a < perCell; a++, start += plane) {
                    int c0 = Math.max(from - start, 0), c1 = Math.min(to - start, plane);
                    if (c0 >= c1) continue;
                    int n = c1 - c0;
                    float[][] box = new float[4][n];
                    float[] values = new float[n], t = new float[n], scratch = new float[n];
                    for (int e = 0; e < entries; e++) {
                        int src = (a * entries + e) * plane + c0;
                        if (e < 4) {
                            sigmoids(heads[k], src, box[e], 0, n, t, scratch);
                        } else {
                            sigmoids(heads[k], src, values, 0, n, t, scratch);
                            for (int i = 0; i < n; i++) out[(start + c0 + i) * entries + e] = values[i];
                        }
                    }
                    for (int i = 0; i < n; i++) {
                        int row = start + c0 + i, o = row * entries;
                        out[o] = cx[row] + (2 * box[0][i] - 1) * stride[row];
                        out[o + 1] = cy[row] + (2 * box[1][i] - 1) * stride[row];
                        out[o + 2] = 4 * box[2][i] * box[2][i] * aw[row];
                        out[o + 3] = 4 * box[3][i] * box[3][i] * ah[row];
                    }
                }
            }
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
