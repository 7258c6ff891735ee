package io.argus.trainer.precision;

import java.nio.FloatBuffer;

/**
 * IEEE half precision on the CPU: rounding FP32 values through FP16 reproduces what FP16 storage does to them,
 * overflow to infinity (beyond 65504) and underflow to zero included.
 */
public final class Fp16 {
    /** The largest finite half-precision value. */
    public static final float MAX = 65504f;

    private Fp16() {}

    public static float round(float v) {
        return Float.float16ToFloat(Float.floatToFloat16(v));
    }

    /** Rounds {@code [from, to)} of a buffer in place. */
    public static void round(FloatBuffer buf, int from, int to) {
        for (int i = from; i < to; i++) buf.put(i, round(buf.get(i)));
    }

    /** Whether every value in {@code [from, to)} is finite. */
    public static boolean allFinite(FloatBuffer buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Float.isFinite(buf.get(i))) return false;
        }
        return true;
    }
}
