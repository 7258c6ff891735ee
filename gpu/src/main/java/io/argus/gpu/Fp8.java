package io.argus.gpu;

/**
 * FP8 E4M3 (the "fn" variant of Hopper's tensor cores: 4 exponent bits with bias 7, 3 mantissa bits, no infinities,
 * 0x7F and 0xFF NaN, largest finite 448) on the host: encoding with round-to-nearest-even, saturating at +-448 as a
 * quantizer must (a value past the calibrated range becomes the largest, not NaN), and decoding. With a scale:
 * {@code encode(v, s)} stores {@code v / s}, so the tensor's values are {@code decode(b) * s}; a tensor's scale is
 * its largest magnitude over 448 ({@link #scaleFor}).
 */
public final class Fp8 {
    /** The largest finite E4M3 value. */
    public static final float MAX = 448f;

    private Fp8() {}

    /** {@code v} as E4M3 bits. */
    public static byte encode(float v) {
        int sign = (Float.floatToRawIntBits(v) >>> 24) & 0x80;
        if (Float.isNaN(v)) return (byte) (sign | 0x7F);
        float a = Math.abs(v);
        if (a >= MAX) return (byte) (sign | 0x7E);
        if (a < 0x1p-6f) {   // subnormal: multiples of 2^-9 (8 of them lands on the smallest normal, bits 0x08)
            return (byte) (sign | (int) Math.rint(a * 512f));
        }
        int e = Math.getExponent(a);
        int m = (int) Math.rint((a / Math.scalb(1f, e) - 1f) * 8f);
        if (m == 8) {
            e++;
            m = 0;
        }
        return (byte) (sign | ((e + 7) << 3) | m);
    }

    /** The value of E4M3 bits. */
    public static float decode(byte bits) {
        int b = bits & 0xFF;
        float sign = (b & 0x80) != 0 ? -1f : 1f;
        int e = (b >>> 3) & 0xF;
        int m = b & 7;
        if (e == 15 && m == 7) return Float.NaN;
        if (e == 0) return sign * m * 0x1p-9f;
        return sign * (1f + m / 8f) * Math.scalb(1f, e - 7);
    }

    /** Every value divided by {@code scale}, encoded. */
    public static byte[] encode(float[] values, float scale) {
        byte[] out = new byte[values.length];
        float inverse = 1f / scale;
        for (int i = 0; i < values.length; i++) out[i] = encode(values[i] * inverse);
        return out;
    }

    /** The scale that maps {@code amax}, the largest magnitude to represent, onto 448 (1 for an all-zero tensor). */
    public static float scaleFor(float amax) {
        return amax > 0 && Float.isFinite(amax) ? amax / MAX : 1f;
    }
}
