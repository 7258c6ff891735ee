package io.argus.detector.cpu;

import java.util.Locale;

/**
 * A Winograd minimal filtering algorithm F(m x m, 3 x 3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
 * Networks", 2015): an m x m block of a 3x3 stride-1 convolution's output from an alpha x alpha input tile
 * (alpha = m + 2) with alpha^2 multiplications per channel pair instead of 9 m^2:
 *
 * <pre>  Y = A^T [ (G g G^T) (.) (B^T d B) ] A</pre>
 *
 * g the 3x3 filter, d the input tile, (.) the element-wise product, which over all channels becomes alpha^2 matrix
 * products (tiles x input channels times input channels x filters). The 1-D matrices below are the published ones
 * (interpolation points 0, +-1 for F(2,3); 0, +-1, +-2 for F(4,3); both with the point at infinity);
 * {@code WinogradTileTest} checks that each computes the 1-D correlation exactly. Larger tiles save more
 * multiplications but their transforms have larger coefficients, so rounding errors grow (docs/cpu.md has the
 * measured errors).
 */
enum WinogradTile {
    /** F(2x2, 3x3): 4x4 input tiles, 16 products, 2.25x fewer multiplications than direct. */
    F2X2(2,
            new double[][] {
                {1, 0, -1, 0},
                {0, 1, 1, 0},
                {0, -1, 1, 0},
                {0, 1, 0, -1}},
            new double[][] {
                {1, 0, 0},
                {0.5, 0.5, 0.5},
                {0.5, -0.5, 0.5},
                {0, 0, 1}},
            new double[][] {
                {1, 1, 1, 0},
                {0, 1, -1, -1}}),
    /** F(4x4, 3x3): 6x6 input tiles, 36 products, 4x fewer multiplications than direct. */
    F4X4(4,
            new double[][] {
                {4, 0, -5, 0, 1, 0},
                {0, -4, -4, 1, 1, 0},
                {0, 4, -4, -1, 1, 0},
                {0, -2, -1, 2, 1, 0},
                {0, 2, -1, -2, 1, 0},
                {0, 4, 0, -5, 0, 1}},
            new double[][] {
                {1 / 4.0, 0, 0},
                {-1 / 6.0, -1 / 6.0, -1 / 6.0},
                {-1 / 6.0, 1 / 6.0, -1 / 6.0},
                {1 / 24.0, 1 / 12.0, 1 / 6.0},
                {1 / 24.0, -1 / 12.0, 1 / 6.0},
                {0, 0, 1}},
            new double[][] {
                {1, 1, 1, 1, 1, 0},
                {0, 1, -1, 2, -2, 0},
                {0, 1, 1, 4, 4, 0},
                {0, 1, -1, 8, -8, 1}});

    /** Outputs per tile side (m). */
    final int outputs;
    /** Input tile side (alpha = m + 2): tiles overlap by 2 rows and columns. */
    final int inputs;
    /** alpha x alpha input transform B^T (integers: exact in float). */
    final double[][] inputTransform;
    /** alpha x 3 filter transform G (applied once, at load, in double). */
    final double[][] filterTransform;
    /** m x alpha output transform A^T (integers: exact in float). */
    final double[][] outputTransform;

    WinogradTile(int outputs, double[][] inputTransform, double[][] filterTransform, double[][] outputTransform) {
        this.outputs = outputs;
        this.inputs = outputs + 2;
        this.inputTransform = inputTransform;
        this.filterTransform = filterTransform;
        this.outputTransform = outputTransform;
    }

    /** alpha^2: the number of element-wise products per tile, i.e. of matrix products per layer. */
    int products() { return inputs * inputs; }

    /** "f2x2", "f4x4": how settings and the tuning cache name it. */
    String label() { return name().toLowerCase(Locale.ROOT); }

    /** {@code m} as floats, row by row (the transforms run in float; their coefficients are integers). */
    static float[][] floats(double[][] m) {
        float[][] f = new float[m.length][];
        for (int i = 0; i < m.length; i++) {
            f[i] = new float[m[i].length];
            for (int j = 0; j < m[i].length; j++) f[i][j] = (float) m[i][j];
        }
        return f;
    }
}
