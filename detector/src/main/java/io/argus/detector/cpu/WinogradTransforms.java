package io.argus.detector.cpu;

import io.argus.detector.darknet.Activation;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Java half of {@link WinogradConvolution}: the three transforms of F(m x m, 3x3) over channels-last (NHWC)
 * buffers, one tile row at a time. oneDNN does the matrix products in between.
 *
 * <ul>
 *   <li>{@link #filters}: once per layer, U = G g G^T for every (filter, channel) pair, laid out as alpha^2 matrices
 *       of channels x filters, in double.</li>
 *   <li>{@link #inputRows}: per tile, V = B^T d B for every channel, into alpha^2 matrices of tiles x channels
 *       ({@code [alpha^2][tiles][C]}), the products' left operands.</li>
 *   <li>{@link #outputRows}: per tile, Y = A^T M A of the products {@code [alpha^2][tiles][K]} plus the bias (added
 *       to one product, {@link #biasProduct}), then the activation where it is a slope (leaky, relu), written as
 *       channels-last output rows; the right and bottom tiles are cut at the output's edge.</li>
 * </ul>
 *
 * <p>Why these loops are fast in plain Java: every step is a linear combination of long contiguous runs of floats
 * ({@link #combine}, all terms in one pass) that C2 compiles to vector instructions. In NHWC a pixel's channels are
 * contiguous; B^T over a tile's rows combines whole padded input rows. For B over a tile's columns, the padded rows
 * are stored with their columns de-interleaved by phase (column x at phase x mod m, slot x / m): tile t's column j is
 * then slot t + j / m of phase j mod m, so one transformed column of every tile of the row is one contiguous run of
 * tiles x C floats. A tile row's pixels are copied from native memory into heap arrays in bulk, and its results
 * back. Tile rows are independent, so threads take disjoint ranges of them ({@link ParallelRanges}). The coefficients
 * of B^T and A^T are small integers, exact in float.
 */
final class WinogradTransforms {
    final WinogradTile tile;
    final int images;
    final int height;
    final int width;
    final int channels;
    final int outHeight;
    final int outWidth;
    final int filters;
    final int pad;
    /** Tiles per output column and row; the last ones may reach past the output's edge. */
    final int tilesY;
    final int tilesX;
    /** Tile rows of all images: the unit of work of the transforms. */
    final int tileRows;
    /** Tiles of all images: the rows of the alpha^2 product matrices. */
    final int tiles;
    /** Columns of input one tile row reads: tilesX x m + 2 (zero where past the image). */
    final int wide;
    private final Terms[] inputTransform;    // B^T, row by row
    private final Terms[] outputTransform;   // A^T, row by row
    private final int[] phaseStart;          // where phase q of a de-interleaved padded row starts (floats)
    private final int[] columnOffset;        // where a tile's column j starts in a de-interleaved row, tile 0
    private final int[] inputRowOffset;      // where padded row i starts in the tile row's heap array
    private final int[] productOffset;       // where product p starts in the tile row's copy of M
    private final int[] partialOffset;       // where partial j starts (one output row of A^T M)
    private final int biasProduct;
    private final boolean rectify;           // leaky or relu: max(v, slope x v)
    private final float slope;

    /**
     * @param activation applied here when it is LEAKY or RELU (a slope); LINEAR needs nothing and the others are left
     *                   to the caller
     */
    WinogradTransforms(WinogradTile tile, int images, int height, int width, int channels, int outHeight, int outWidth,
                       int filters, int pad, Activation activation) {
        if (images <= 0 || height <= 0 || width <= 0 || channels <= 0 || outHeight <= 0 || outWidth <= 0 || filters <= 0
                || pad < 0) {
            throw new IllegalArgumentException("Winograd shape " + images + "x" + channels + "x" + height + "x" + width
                    + " -> " + filters + "x" + outHeight + "x" + outWidth + " pad " + pad);
        }
        if (outHeight != height + 2 * pad - 2 || outWidth != width + 2 * pad - 2) {
            throw new IllegalArgumentException("a 3x3 stride-1 convolution with pad " + pad + " maps " + height + "x"
                    + width + " to " + (height + 2 * pad - 2) + "x" + (width + 2 * pad - 2) + ", not " + outHeight + "x"
                    + outWidth);
        }
        this.tile = tile;
        this.images = images;
        this.height = height;
        this.width = width;
        this.channels = channels;
        this.outHeight = outHeight;
        this.outWidth = outWidth;
        this.filters = filters;
        this.pad = pad;
        int m = tile.outputs;
        int a = tile.inputs;
        this.tilesY = (outHeight + m - 1) / m;
        this.tilesX = (outWidth + m - 1) / m;
        this.tileRows = images * tilesY;
        long all = (long) tileRows * tilesX;
        if ((long) tile.products() * all * Math.max(channels, filters) > Integer.MAX_VALUE
                || (long) a * (tilesX * m + 2) * channels > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Winograd products of " + all + " tiles x " + Math.max(channels, filters)
                    + " channels exceed 2^31 floats");
        }
        this.tiles = (int) all;
        this.wide = tilesX * m + 2;
        this.inputTransform = Terms.of(tile.inputTransform);
        this.outputTransform = Terms.of(tile.outputTransform);
        this.phaseStart = new int[m + 1];
        for (int q = 0; q < m; q++) phaseStart[q + 1] = phaseStart[q] + (wide - q + m - 1) / m * channels;
        this.columnOffset = new int[a];
        for (int j = 0; j < a; j++) columnOffset[j] = phaseStart[j % m] + j / m * channels;
        this.inputRowOffset = steps(a, wide * channels);
        this.productOffset = steps(tile.products(), tilesX * filters);
        this.partialOffset = steps(a, tilesX * filters);
        this.biasProduct = biasProduct(tile);
        this.rectify = activation == Activation.LEAKY || activation == Activation.RELU;
        // oneDNN's relu with negative slope alpha is x > 0 ? x : alpha x; for 0 <= alpha < 1 that is max(x, alpha x)
        this.slope = activation == Activation.LEAKY ? 0.1f : 0f;
    }

    private static int[] steps(int count, int step) {
        int[] o = new int[count];
        for (int i = 0; i < count; i++) o[i] = i * step;
        return o;
    }

    /**
     * U = G g G^T of every filter and channel, in double, as alpha^2 matrices of channels x filters ({@code
     * [alpha^2][C][K]}, the products' right operands).
     *
     * @param weights Darknet order {@code [K][C][3][3]} (batch norm folded)
     */
    static float[] filters(WinogradTile tile, float[] weights, int filters, int channels) {
        if (weights.length != filters * channels * 9) {
            throw new IllegalArgumentException(weights.length + " weights for " + filters + " 3x3 filters of " + channels
                    + " channels");
        }
        int a = tile.inputs;
        double[][] g = tile.filterTransform;
        float[] u = new float[a * a * channels * filters];
        double[] gg = new double[a * 3];   // G g, one filter and channel
        for (int k = 0; k < filters; k++) {
            for (int c = 0; c < channels; c++) {
                int w = (k * channels + c) * 9;
                for (int i = 0; i < a; i++) {
                    for (int col = 0; col < 3; col++) {
                        double s = 0;
                        for (int r = 0; r < 3; r++) s += g[i][r] * weights[w + r * 3 + col];
                        gg[i * 3 + col] = s;
                    }
                }
                for (int i = 0; i < a; i++) {
                    for (int j = 0; j < a; j++) {
                        double s = 0;
                        for (int col = 0; col < 3; col++) s += gg[i * 3 + col] * g[j][col];
                        u[((i * a + j) * channels + c) * filters + k] = (float) s;
                    }
                }
            }
        }
        return u;
    }

    /**
     * The product that carries the bias: bias b added to product (c, c), where column c of A^T is all ones, adds b to
     * every output of the tile (A^T e_c e_c^T A = 1 1^T): one addition per tile and filter instead of m^2.
     */
    static int biasProduct(WinogradTile tile) {
        double[][] at = tile.outputTransform;
        for (int c = 0; c < tile.inputs; c++) {
            boolean ones = true;
            for (double[] row : at) ones &= row[c] == 1;
            if (ones) return c * tile.inputs + c;
        }
        throw new IllegalStateException(tile + ": no column of A^T is all ones");
    }

    /** Heap floats one thread needs for {@link #inputRows} and {@link #outputRows} of this layer. */
    void reserve(Staging s) {
        int a = tile.inputs;
        s.reserve(Math.max(width * channels, outWidth * filters), wide * channels, a * wide * channels,
                tile.products() * tilesX * channels, tile.products() * tilesX * filters, a * tilesX * filters);
    }

    /**
     * Transforms the input tiles of tile rows {@code [from, to)} (over all images) into {@code tilesOut}: tile t of
     * product p at {@code (p x tiles + t) x C}.
     *
     * @param in channels-last input of {@link #images} images
     */
    void inputRows(FloatBuffer in, FloatBuffer tilesOut, Staging s, int from, int to) {
        int a = tile.inputs;
        int m = tile.outputs;
        int c = channels;
        int rowLength = wide * c;
        int run = tilesX * c;   // one transformed column of every tile of the row
        float[] line = s.line;
        float[] rows = s.rows;
        float[] transformed = s.rowTransformed;
        float[] v = s.tiles;
        for (int r = from; r < to; r++) {
            int image = r / tilesY;
            int ty = r % tilesY;
            // the alpha padded input rows under this tile row, columns de-interleaved by phase
            for (int i = 0; i < a; i++) {
                int y = ty * m - pad + i;
                int base = i * rowLength;
                if (y < 0 || y >= height) {
                    Arrays.fill(rows, base, base + rowLength, 0f);
                    continue;
                }
                int pixel = ((image * height + y) * width - pad) * c;
                for (int x = 0; x < wide; x++) {
                    int slot = base + phaseStart[x % m] + x / m * c;
                    int ix = x - pad;
                    if (ix >= 0 && ix < width) in.get(pixel + x * c, rows, slot, c);
                    else Arrays.fill(rows, slot, slot + c, 0f);
                }
            }
            for (int i = 0; i < a; i++) {
                // row i of B^T d: a combination of whole rows (the same phase layout in each), still in L1 when ...
                combine(inputTransform[i], rows, 0, inputRowOffset, transformed, 0, rowLength);
                // ... times B: combinations of its columns, each a run over all tiles of the row
                for (int j = 0; j < a; j++) combine(inputTransform[j], transformed, 0, columnOffset, v, (i * a + j) * run, run);
            }
            for (int p = 0; p < a * a; p++) tilesOut.put((p * tiles + r * tilesX) * c, v, p * run, run);
        }
    }

    /**
     * Transforms the products of tile rows {@code [from, to)} into output rows: Y = A^T M A + bias, then the slope
     * activation (leaky, relu) when this layer has one.
     *
     * @param products tile t of product p at {@code (p x tiles + t) x K}
     * @param out      channels-last output of {@link #images} images
     */
    void outputRows(FloatBuffer products, float[] bias, FloatBuffer out, Staging s, int from, int to) {
        int a = tile.inputs;
        int m = tile.outputs;
        int k = filters;
        int run = tilesX * k;   // one product (or partial result) of every tile of the row
        float[] row = s.products;
        float[] partial = s.partial;
        float[] outputs = s.outputs;
        float[] line = s.line;
        for (int r = from; r < to; r++) {
            int image = r / tilesY;
            int ty = r % tilesY;
            for (int p = 0; p < a * a; p++) products.get((p * tiles + r * tilesX) * k, row, p * run, run);
            for (int tx = 0, b = biasProduct * run; tx < tilesX; tx++, b += k) {
                for (int f = 0; f < k; f++) row[b + f] += bias[f];
            }
            for (int oy = 0; oy < m; oy++) {
                int y = ty * m + oy;
                if (y >= outHeight) break;
                // A^T M, output row oy: combinations over the tiles' rows, one per column j
                for (int j = 0; j < a; j++) combine(outputTransform[oy], row, j * run, productOffset, partial, j * run, run, a);
                // ... then A: combinations over their columns, one per output column ox of each tile
                for (int ox = 0; ox < m; ox++) combine(outputTransform[ox], partial, 0, partialOffset, outputs, ox * run, run);
                if (rectify) {
                    int n = m * run;
                    for (int i = 0; i < n; i++) {
                        float val = outputs[i];
                        outputs[i] = Math.max(val, slope * val);
                    }
                }
                // interleave: output column x = tile x m + ox
                for (int tx = 0; tx < tilesX; tx++) {
                    for (int ox = 0; ox < m; ox++) {
                        int x = tx * m + ox;
                        if (x >= outWidth) break;
                        System.arraycopy(outputs, ox * run + tx * k, line, x * k, k);
                    }
                }
                out.put(((image * outHeight + y) * outWidth) * k, line, 0, outWidth * k);
            }
        }
    }

    private static boolean compiled;

    /**
     * Runs the transforms of both tiles on a small made-up layer until the JVM has compiled them, once per process,
     * before the tuner times our Winograd for the first time: timed in the interpreter or in C1's code (not
     * vectorized) it was 4x slower than it runs, and lost to oneDNN where it wins. The compiler works in the
     * background, so "compiled" is read off the JVM's compilation time: the warm-up goes on until it has not grown for
     * 100 ms (2 s at most). The same compiled code then serves every layer.
     */
    static synchronized void compileOnce() {
        if (compiled) return;
        compiled = true;
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long quietSince = start;
        long lastJitMs = measurable ? jit.getTotalCompilationTime() : 0;
        List<Runnable> layers = new ArrayList<>();
        for (WinogradTile t : WinogradTile.values()) {
            for (Activation act : new Activation[] {Activation.LEAKY, Activation.LINEAR}) layers.add(madeUpLayer(t, act));
        }
        for (int round = 0; ; round++) {
            for (Runnable layer : layers) layer.run();
            long now = System.nanoTime();
            if (round % 16 == 15) {
                long jitMs = measurable ? jit.getTotalCompilationTime() : 0;
                if (jitMs != lastJitMs) quietSince = now;
                lastJitMs = jitMs;
                if (round >= 2_000 && (!measurable || now - quietSince > 100_000_000L)) return;
            }
            if (now - start > 2_000_000_000L) return;
        }
    }

    /** One pass of both transforms over a 12x12x16 -> 16 layer, in direct buffers like the network's. */
    private static Runnable madeUpLayer(WinogradTile t, Activation act) {
        WinogradTransforms w = new WinogradTransforms(t, 1, 12, 12, 16, 12, 12, 16, 1, act);
        Staging s = new Staging();
        w.reserve(s);
        // direct buffers, the kind the network's are: code compiled for heap buffers would be thrown away
        FloatBuffer in = direct(12 * 12 * 16);
        FloatBuffer v = direct(t.products() * w.tiles * 16);
        FloatBuffer out = direct(12 * 12 * 16);
        float[] bias = new float[16];
        return () -> {
            for (int r = 0; r < w.tileRows; r++) {
                w.inputRows(in, v, s, r, r + 1);
                w.outputRows(v, bias, out, s, r, r + 1);
            }
        };
    }

    private static FloatBuffer direct(int floats) {
        return java.nio.ByteBuffer.allocateDirect(4 * floats).order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer();
    }

    /**
     * The nonzero coefficients of one row of a transform matrix, as weights and the column each multiplies: a
     * combination reads only those.
     */
    record Terms(float[] weights, int[] columns) {
        static Terms[] of(double[][] matrix) {
            Terms[] t = new Terms[matrix.length];
            for (int i = 0; i < matrix.length; i++) {
                int n = 0;
                for (double v : matrix[i]) if (v != 0) n++;
                float[] w = new float[n];
                int[] col = new int[n];
                n = 0;
                for (int j = 0; j < matrix[i].length; j++) {
                    if (matrix[i][j] != 0) {
                        w[n] = (float) matrix[i][j];
                        col[n++] = j;
                    }
                }
                t[i] = new Terms(w, col);
            }
            return t;
        }
    }

    /** {@link #combine(Terms, float[], int, int[], float[], int, int, int)} with sources at {@code offsets[column]}. */
    static void combine(Terms t, float[] src, int base, int[] offsets, float[] dst, int dOff, int length) {
        combine(t, src, base, offsets, dst, dOff, length, 1);
    }

    /**
     * {@code dst[dOff + i] = sum over terms of weight x src[base + offsets[column x stride] + i]} for i below
     * {@code length}, all terms in one pass (each element is read and written once; a pass per term would move three
     * times the memory). Up to six terms, the most a row of F(4x4)'s matrices has.
     */
    static void combine(Terms t, float[] src, int base, int[] offsets, float[] dst, int dOff, int length, int stride) {
        float[] w = t.weights;
        int[] j = t.columns;
        switch (w.length) {
            case 0 -> Arrays.fill(dst, dOff, dOff + length, 0f);
            case 1 -> {
                float w0 = w[0];
                int s0 = base + offsets[j[0] * stride];
                for (int i = 0; i < length; i++) dst[dOff + i] = w0 * src[s0 + i];
            }
            case 2 -> {
                float w0 = w[0], w1 = w[1];
                int s0 = base + offsets[j[0] * stride], s1 = base + offsets[j[1] * stride];
                for (int i = 0; i < length; i++) dst[dOff + i] = w0 * src[s0 + i] + w1 * src[s1 + i];
            }
            case 3 -> {
                float w0 = w[0], w1 = w[1], w2 = w[2];
                int s0 = base + offsets[j[0] * stride], s1 = base + offsets[j[1] * stride], s2 = base + offsets[j[2] * stride];
                for (int i = 0; i < length; i++) dst[dOff + i] = w0 * src[s0 + i] + w1 * src[s1 + i] + w2 * src[s2 + i];
            }
            case 4 -> {
                float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
                int s0 = base + offsets[j[0] * stride], s1 = base + offsets[j[1] * stride], s2 = base + offsets[j[2] * stride],
                        s3 = base + offsets[j[3] * stride];
                for (int i = 0; i < length; i++) {
                    dst[dOff + i] = w0 * src[s0 + i] + w1 * src[s1 + i] + w2 * src[s2 + i] + w3 * src[s3 + i];
                }
            }
            case 5 -> {
                float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4];
                int s0 = base + offsets[j[0] * stride], s1 = base + offsets[j[1] * stride], s2 = base + offsets[j[2] * stride],
                        s3 = base + offsets[j[3] * stride], s4 = base + offsets[j[4] * stride];
                for (int i = 0; i < length; i++) {
                    dst[dOff + i] = w0 * src[s0 + i] + w1 * src[s1 + i] + w2 * src[s2 + i] + w3 * src[s3 + i]
                            + w4 * src[s4 + i];
                }
            }
            case 6 -> {
                float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5];
                int s0 = base + offsets[j[0] * stride], s1 = base + offsets[j[1] * stride], s2 = base + offsets[j[2] * stride],
                        s3 = base + offsets[j[3] * stride], s4 = base + offsets[j[4] * stride], s5 = base + offsets[j[5] * stride];
                for (int i = 0; i < length; i++) {
                    dst[dOff + i] = w0 * src[s0 + i] + w1 * src[s1 + i] + w2 * src[s2 + i] + w3 * src[s3 + i]
                            + w4 * src[s4 + i] + w5 * src[s5 + i];
                }
            }
            default -> throw new IllegalArgumentException(w.length + " terms: at most 6");
        }
    }

    /**
     * One thread's heap arrays for one tile row, shared by all Winograd layers of a network (they run one after the
     * other) and grown, at build time, to the largest layer's needs.
     */
    static final class Staging {
        float[] line = new float[0];              // one input row as read, or one output row as written
        float[] rows = new float[0];              // alpha padded input rows, columns de-interleaved by phase
        float[] rowTransformed = new float[0];    // one row of B^T over them
        float[] tiles = new float[0];             // the tile row's V, [alpha^2][tilesX][C]
        float[] products = new float[0];          // the tile row's M, [alpha^2][tilesX][K]
        float[] partial = new float[0];           // A^T over M's tile rows, one output row: [alpha][tilesX][K]
        float[] outputs = new float[0];           // the output row's tiles, [m][tilesX][K]

        void reserve(int line, int paddedRow, int paddedRows, int tiles, int products, int partial) {
            if (this.line.length < line) this.line = new float[line];
            if (this.rows.length < paddedRows) this.rows = new float[paddedRows];
            if (this.rowTransformed.length < paddedRow) this.rowTransformed = new float[paddedRow];
            if (this.tiles.length < tiles) this.tiles = new float[tiles];
            if (this.products.length < products) this.products = new float[products];
            if (this.partial.length < partial) this.partial = new float[partial];
            if (this.outputs.length < partial) this.outputs = new float[partial];   // m x run <= alpha x run
        }
    }
}
