package io.argus.detector.yuv;

/**
 * How a video stream's YUV samples become RGB: the colour matrix (BT.601 for SD and for streams that do not say,
 * BT.709 for HD) and the range (limited: Y in 16..235, chroma in 16..240; full: 0..255). The conversion itself is
 * fixed-point integer arithmetic on these {@link #coefficients} so the GPU kernel (kernels/nv12.cu) and the CPU
 * reference ({@link Nv12Image#toBgr}) produce the same bytes exactly, not merely close ones.
 */
public record YuvColour(Matrix matrix, Range range) {
    /** Bits of the fixed-point coefficients: value = (sum + 2^(SHIFT-1)) >> SHIFT. */
    public static final int SHIFT = 16;

    public enum Matrix {
        BT601(0.299, 0.114),
        BT709(0.2126, 0.0722);

        final double kr;
        final double kb;

        Matrix(double kr, double kb) {
            this.kr = kr;
            this.kb = kb;
        }
    }

    public enum Range { LIMITED, FULL }

    public YuvColour {
        if (matrix == null || range == null) throw new IllegalArgumentException("a YUV colour needs a matrix and a range");
    }

    /** What FFmpeg's swscale assumes for a stream that says nothing: BT.601, limited range. */
    public static final YuvColour DEFAULT = new YuvColour(Matrix.BT601, Range.LIMITED);

    /**
     * The integer coefficients {yScale, yOffset, rV, gU, gV, bU} (the kernel's arguments, in this order):
     * R = yScale (Y - yOffset) + rV (V - 128), G = yScale (Y - yOffset) + gU (U - 128) + gV (V - 128),
     * B = yScale (Y - yOffset) + bU (U - 128), each scaled by 2^SHIFT.
     */
    public int[] coefficients() {
        double kr = matrix.kr;
        double kb = matrix.kb;
        double kg = 1 - kr - kb;
        boolean limited = range == Range.LIMITED;
        double y = limited ? 255.0 / 219.0 : 1.0;
        double c = limited ? 255.0 / 224.0 : 1.0;
        return new int[] {
            fixed(y), limited ? 16 : 0,
            fixed(c * 2 * (1 - kr)),
            fixed(-c * 2 * kb * (1 - kb) / kg), fixed(-c * 2 * kr * (1 - kr) / kg),
            fixed(c * 2 * (1 - kb)),
        };
    }

    private static int fixed(double v) {
        return (int) Math.round(v * (1 << SHIFT));
    }
}
