package io.argus.detector.cpu;

import io.argus.detector.darknet.Activation;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The Java half of {@link WinogradConvolution}: the three transforms of F(m x m, 3x3) over channels-last (NHWC)
 * buffers, one tile row at a time. oneDNN does the matrix products in between.
 *
 * <ul>
 *   <li>{@link #filters}: once at load, U = G g G^T for every (filter, channel) pair, laid out as alpha^2 matrices of
 *       channels x filters, in double.</li>
 *   <li>{@link #inputRows}: per tile, V = B^T d B for every channel, into alpha^2 matrices of tiles x channels
 *       ({@code [alpha^2][tiles][C]}), the products' left operands.</li>
 *   <li>{@link #outputRows}: per tile, Y = A^T M A of the products {@code [alpha^2][tiles][K]}, plus the bias and the
 *       activation where it is a slope (leaky, relu, linear), written as channels-last output rows; the right and
 *       bottom tiles are cut at the output's edge.</li>
 * </ul>
 *
 * <p>Why these loops are fast in plain Java: in NHWC a pixel's channels are contiguous, so every step is a linear
 * combination of long contiguous runs of floats ({@link #combine}: whole padded rows, then C or tiles x K floats at a
 * time) that C2 compiles to vector instructions; the tile row's pixels are first copied from native memory into heap
 * arrays (bulk copies) and its results copied back the same way. Tile rows are independent, so threads take disjoint
 * ranges of them ({@link ParallelRanges}). The coefficients of B^T and A^T are small integers, exact in float.
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
    /** Columns of input one tile row reads: tilesX x m + 2 (the last ones zero where past the image). */
    final int wide;
    private final float[][] inputTransform;    // B^T
    private final float[][] outputTransform;   // A^T
    private final boolean rectify;             // leaky or relu: max(v, slope x v)
    private final float slope;

    /**
     * @param activation applied here when it is LEAKY or RELU (a slope); LINEAR and the others are left to the
     *                   caller (bias only)
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
        this.tilesY = (outHeight + tile.outputs - 1) / tile.outputs;
        this.tilesX = (outWidth + tile.outputs - 1) / tile.outputs;
        this.tileRows = images * tilesY;
        long all = (long) tileRows * tilesX;
        if ((long) tile.products() * all * Math.max(channels, filters) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Winograd products of " + all + " tiles x " + Math.max(channels, filters)
                    + " channels exceed 2^31 floats");
        }
        this.tiles = (int) all;
        this.wide = tilesX * tile.outputs + 2;
        this.inputTransform = WinogradTile.floats(tile.inputTransform);
        this.outputTransform = WinogradTile.floats(tile.outputTransform);
        this.rectify = activation == Activation.LEAKY || activation == Activation.RELU;
        // oneDNN's relu with slope alpha is x > 0 ? x : alpha x; for 0 <= alpha < 1 that is max(x, alpha x)
        this.slope = activation == Activation.LEAKY ? 0.1f : 0f;
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

    /** Heap floats one thread needs for {@link #inputRows} and {@link #outputRows} of this layer. */
    void reserve(Staging s) {
        int a = tile.inputs;
        s.reserve(a * wide * channels, tile.products() * tilesX * channels, tile.products() * tilesX * filters,
                a * tilesX * filters, tile.outputs * tilesX * filters, outWidth * filters);
    }

    /**
     * Transforms the input tiles of tile rows {@code [from, to)} (over all images) into {@code tiles}: tile t of
     * product p at {@code (p x tiles + t) x C}.
     *
     * @param in channels-last input of {@link #images} images
     */
    void inputRows(FloatBuffer in, FloatBuffer tilesOut, Staging s, int from, int to) {
        int a = tile.inputs;
        int m = tile.outputs;
        int c = channels;
        int rowLength = wide * c;
        float[] rows = s.inputRows;
        float[] rowsTransformed = s.rowsTransformed;
        float[] transformed = s.tiles;
        int copyEnd = Math.min(wide, pad + width);   // padded columns [pad, copyEnd) hold image columns
        for (int r = from; r < to; r++) {
            int image = r / tilesY;
            int ty = r % tilesY;
            // the alpha input rows under this tile row, zero outside the image
            for (int i = 0; i < a; i++) {
                int y = ty * m - pad + i;
                int base = i * rowLength;
                if (y < 0 || y >= height) {
                    Arrays.fill(rows, base, base + rowLength, 0f);
                    continue;
                }
                Arrays.fill(rows, base, base + pad * c, 0f);
                in.get(((image * height + y) * width) * c, rows, base + pad * c, (copyEnd - pad) * c);
                Arrays.fill(rows, base + copyEnd * c, base + rowLength, 0f);
            }
            // B^T d: combinations of whole rows
            for (int i = 0; i < a; i++) combine(inputTransform[i], rows, 0, rowLength, rowsTransformed, i * rowLength, rowLength);
            // (B^T d) B: per tile, combinations of its columns, each C floats
            for (int tx = 0; tx < tilesX; tx++) {
                for (int i = 0; i < a; i++) {
                    int source = i * rowLength + tx * m * c;
                    for (int j = 0; j < a; j++) {
                        combine(inputTransform[j], rowsTransformed, source, c, transformed, ((i * a + j) * tilesX + tx) * c, c);
                    }
                }
            }
            for (int p = 0; p < a * a; p++) {
                tilesOut.put((p * tiles + r * tilesX) * c, transformed, p * tilesX * c, tilesX * c);
            }
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
        int block = tilesX * k;   // one product (or partial result) of a whole tile row
        float[] row = s.products;
        float[] partial = s.partial;
        float[] outputs = s.outputs;
        float[] line = s.line;
        for (int r = from; r < to; r++) {
            int image = r / tilesY;
            int ty = r % tilesY;
            for (int p = 0; p < a * a; p++) products.get((p * tiles + r * tilesX) * k, row, p * block, block);
            for (int oy = 0; oy < m; oy++) {
                int y = ty * m + oy;
                if (y >= outHeight) break;
                // A^T M over the tiles' rows, output row oy: alpha partial products
                for (int j = 0; j < a; j++) combine(outputTransform[oy], row, j * block, a * block, partial, j * block, block);
                // ... then A over their columns: the m outputs of each tile in this row
                for (int ox = 0; ox < m; ox++) combine(outputTransform[ox], partial, 0, block, outputs, ox * block, block);
                for (int tx = 0; tx < tilesX; tx++) {
                    for (int ox = 0; ox < m; ox++) {
                        int x = tx * m + ox;
                        if (x >= outWidth) break;
                        int src = ox * block + tx * k;
                        int dst = x * k;
                        if (rectify) {
                            for (int f = 0; f < k; f++) {
                                float v = outputs[src + f] + bias[f];
                                line[dst + f] = Math.max(v, slope * v);
                            }
                        } else {
                            for (int f = 0; f < k; f++) line[dst + f] = outputs[src + f] + bias[f];
                        }
                    }
                }
                out.put(((image * outHeight + y) * outWidth) * k, line, 0, outWidth * k);
            }
        }
    }

    /**
     * {@code dst[dOff + i] = sum over j of coef[j] x src[off + j x step + i]} for i below {@code length}, zero
     * coefficients skipped, +-1 without a multiplication (the same result: the products are exact).
     */
    static void combine(float[] coef, float[] src, int off, int step, float[] dst, int dOff, int length) {
        boolean first = true;
        for (int j = 0; j < coef.length; j++) {
            float w = coef[j];
            if (w == 0) continue;
            int s = off + j * step;
            if (first) {
                for (int i = 0; i < length; i++) dst[dOff + i] = w * src[s + i];
                first = false;
            } else if (w == 1) {
                for (int i = 0; i < length; i++) dst[dOff + i] += src[s + i];
            } else if (w == -1) {
                for (int i = 0; i < length; i++) dst[dOff + i] -= src[s + i];
            } else {
                for (int i = 0; i < length; i++) dst[dOff + i] += w * src[s + i];
            }
        }
        if (first) Arrays.fill(dst, dOff, dOff + length, 0f);
    }

    /**
     * One thread's heap arrays for one tile row, shared by all Winograd layers of a network (they run one after the
     * other) and grown, at build time, to the largest layer's needs.
     */
    static final class Staging {
        float[] inputRows = new float[0];         // alpha padded input rows
        float[] rowsTransformed = new float[0];   // B^T over them
        float[] tiles = new float[0];             // the tile row's V, [alpha^2][tilesX][C]
        float[] products = new float[0];          // the tile row's M, [alpha^2][tilesX][K]
        float[] partial = new float[0];           // A^T over M's tile rows, one output row: [alpha][tilesX][K]
        float[] outputs = new float[0];           // the output row's tiles, [m][tilesX][K]
        float[] line = new float[0];              // the output row, [outWidth][K]

        void reserve(int inputRows, int tiles, int products, int partial, int outputs, int line) {
            if (this.inputRows.length < inputRows) {
                this.inputRows = new float[inputRows];
                this.rowsTransformed = new float[inputRows];
            }
            if (this.tiles.length < tiles) this.tiles = new float[tiles];
            if (this.products.length < products) this.products = new float[products];
            if (this.partial.length < partial) this.partial = new float[partial];
            if (this.outputs.length < outputs) this.outputs = new float[outputs];
            if (this.line.length < line) this.line = new float[line];
        }
    }
}
