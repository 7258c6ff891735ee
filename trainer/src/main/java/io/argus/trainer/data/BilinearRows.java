package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import java.util.Arrays;

/**
 * The augmenter's bilinear crop-and-resize, one output row at a time, as planar RGB floats in [0, 1]: output pixel
 * (u, v) of a {@code tw x th} tile samples source position ({@code left + (u + 0.5) cropW / tw - 0.5}, the same in y;
 * u mirrored when flipped), from the four neighbours around it, grey 0.5 where a neighbour lies outside the image.
 *
 * <p>The interpolation is separable, and is done so: first along x within a source row (top = p00 + ax (p10 - p00)),
 * then between the two rows around v (top + ay (bottom - top)). These are the very float operations, in the same
 * order, of the direct per-pixel formula (AugmenterReference.resample, in the tests), so the floats are bit for bit
 * the same; what is saved is repetition. A source row interpolated along x serves every output row that reads it (two
 * rows are kept: when enlarging, consecutive output rows read the same two source rows; when shrinking they share
 * one), and the second step is a plain loop over arrays that the JIT vectorises.
 *
 * <p>Holds its buffers between tiles (the loader's threads each have one; see {@link Augmenter}): not thread-safe.
 */
final class BilinearRows {
    private static final float GREY = 0.5f;
    private static final int NONE = Integer.MIN_VALUE;   // a cache slot holding no row
    private static final int OUTSIDE = -1;               // the key of every row outside the image (all grey)

    /** Byte value v as a float in [0, 1]: v / 255f, looked up (the same float as the division). */
    private static final float[] UNIT = new float[256];

    static {
        for (int v = 0; v < 256; v++) UNIT[v] = v / 255f;
    }

    // the image and crop of the tile begun last
    private BgrImage img;
    private byte[] px;          // the image's bytes: its heap array, or rowBytes for a direct buffer
    private boolean direct;
    private int base;           // index of the image's byte 0 in px (heap)
    private byte[] rowBytes = new byte[0];   // a direct buffer's row, copied out (never an image's own array)
    private double top;
    private double sy;
    private int tw;

    // per output column: where its two neighbours' B (then G, R) lie in the source row, and the right one's weight
    private int[] col0 = new int[0];
    private int[] col1 = new int[0];
    private float[] colA = new float[0];
    // the source columns the tile reads, [spanX, spanX + spanW): one source row of them as floats, BGR interleaved
    // as in the image, with a grey pixel on each side for every neighbour outside the image
    private int spanX;
    private int spanW;
    private float[] src = new float[0];
    // two source rows interpolated along x, per channel, and the row each holds
    private final float[][] rowR = new float[2][0];
    private final float[][] rowG = new float[2][0];
    private final float[][] rowB = new float[2][0];
    private final int[] rowKey = {NONE, NONE};

    /**
     * Starts a {@code tw x th} tile from the crop (left, top, cropW x cropH source pixels) of {@code image}, mirrored
     * left-right when {@code flip}.
     */
    void begin(BgrImage image, double left, double top, double cropW, double cropH, boolean flip, int tw, int th) {
        this.img = image;
        this.top = top;
        this.sy = cropH / th;
        this.tw = tw;
        int w = image.width();
        direct = !image.pixels().hasArray();
        if (direct) {
            if (rowBytes.length < 3 * w) rowBytes = new byte[3 * w];
            px = rowBytes;
            base = 0;
        } else {
            px = image.pixels().array();
            base = image.pixels().arrayOffset();
        }
        if (colA.length < tw) {
            col0 = new int[tw];
            col1 = new int[tw];
            colA = new float[tw];
            for (int s = 0; s < 2; s++) {
                rowR[s] = new float[tw];
                rowG[s] = new float[tw];
                rowB[s] = new float[tw];
            }
        }
        // Each column's left neighbour x0 and weight, as the direct formula computes them; then the span of source
        // columns read (x0 and x0 + 1 of every column, within the image).
        double sx = cropW / tw;
        int minX = Integer.MAX_VALUE;
        int maxX = Integer.MIN_VALUE;
        for (int u = 0; u < tw; u++) {
            int su = flip ? tw - 1 - u : u;
            double fx = left + (su + 0.5) * sx - 0.5;
            int x0 = (int) Math.floor(fx);
            col0[u] = x0;
            colA[u] = (float) (fx - x0);
            minX = Math.min(minX, x0);
            maxX = Math.max(maxX, x0 + 1);
        }
        spanX = Math.max(0, minX);
        spanW = Math.max(0, Math.min(w - 1, maxX) - spanX + 1);   // 0: every column reads outside the image
        if (src.length < 3 * (spanW + 2)) src = new float[3 * (spanW + 2)];
        Arrays.fill(src, 0, 3, GREY);
        Arrays.fill(src, 3 * (spanW + 1), 3 * (spanW + 2), GREY);
        // Source column x is pixel x - spanX + 1 of the padded row; a column left of the image (x < 0 <= spanX)
        // reads the left pad, one right of it (x >= w, beyond the span's last) the right pad.
        for (int u = 0; u < tw; u++) {
            int x0 = col0[u];
            col0[u] = 3 * Math.clamp(x0 - spanX + 1, 0, spanW + 1);
            col1[u] = 3 * Math.clamp(x0 + 1 - spanX + 1, 0, spanW + 1);
        }
        rowKey[0] = rowKey[1] = NONE;
    }

    /** Output row v of the tile into r, g and b, [0, tw) of each. */
    void row(int v, float[] r, float[] g, float[] b) {
        double fy = top + (v + 0.5) * sy - 0.5;
        int y0 = (int) Math.floor(fy);
        float ay = (float) (fy - y0);
        int t = slotOf(key(y0));
        if (t < 0) {
            t = rowKey[0] == key(y0 + 1) ? 1 : 0;   // keep the row below if held
            interpolate(y0, t);
        }
        int s = slotOf(key(y0 + 1));
        if (s < 0) {
            s = 1 - t;
            interpolate(y0 + 1, s);
        }
        lerp(rowR[t], rowR[s], ay, r, tw);
        lerp(rowG[t], rowG[s], ay, g, tw);
        lerp(rowB[t], rowB[s], ay, b, tw);
    }

    /** out = top + a (bottom - top), elementwise: the direct formula's last step. */
    private static void lerp(float[] top, float[] bottom, float a, float[] out, int n) {
        for (int u = 0; u < n; u++) out[u] = top[u] + a * (bottom[u] - top[u]);
    }

    private int key(int y) {
        return y < 0 || y >= img.height() ? OUTSIDE : y;
    }

    private int slotOf(int key) {
        return rowKey[0] == key ? 0 : rowKey[1] == key ? 1 : -1;
    }

    /** Source row y interpolated along x at every output column, into cache slot s. */
    private void interpolate(int y, int s) {
        int key = key(y);
        rowKey[s] = key;
        float[] hr = rowR[s];
        float[] hg = rowG[s];
        float[] hb = rowB[s];
        if (key == OUTSIDE) {   // four grey neighbours: p00 + ax (p10 - p00) = 0.5 + ax * 0 = 0.5 exactly
            Arrays.fill(hr, 0, tw, GREY);
            Arrays.fill(hg, 0, tw, GREY);
            Arrays.fill(hb, 0, tw, GREY);
            return;
        }
        // The row's bytes within the span as floats, in one pass over the contiguous bytes (BGR left interleaved:
        // de-interleaving into a row per channel made the whole resampling 0.50 ms per 416x416 tile, against 0.37),
        // then the interpolation along x.
        int at;
        if (direct) {
            img.pixels().get(y * img.stride() + 3 * spanX, px, 0, 3 * spanW);
            at = 0;
        } else {
            at = base + y * img.stride() + 3 * spanX;
        }
        byte[] p = px;
        float[] f = src;
        int n = 3 * spanW;
        for (int i = 0; i < n; i++) f[3 + i] = UNIT[p[at + i] & 0xff];
        int[] c0 = col0;
        int[] c1 = col1;
        float[] ca = colA;
        for (int u = 0; u < tw; u++) {
            int i0 = c0[u];
            int i1 = c1[u];
            float a = ca[u];
            float b0 = f[i0];
            float g0 = f[i0 + 1];
            float r0 = f[i0 + 2];
            hr[u] = r0 + a * (f[i1 + 2] - r0);
            hg[u] = g0 + a * (f[i1 + 1] - g0);
            hb[u] = b0 + a * (f[i1] - b0);
        }
    }
}
