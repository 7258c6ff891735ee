package io.argus.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * E4M3 against an independent implementation: the bits and values below are what PyTorch 2.11's
 * {@code torch.float8_e4m3fn} conversion gives for the same floats (ties to even, saturation at 448, subnormals).
 */
@Budget(seconds = 5)
class Fp8Test {
    static final float[] IN = {0.0f, 1.0f, -1.5f, 447.0f, 449.0f, 464.0f, 500.0f, 1e-9f, 0.0009765625f, 0.001953125f,
            0.0029296875f, 3.14159f, 240.0f, 232.0f, 0.013671875f, 0.0146484375f, -0.3f, 0.06f, 17.0f, 19.0f,
            0.017578125f};
    static final int[] BITS = {0, 56, 188, 126, 126, 126, 126, 0, 0, 1, 2, 69, 119, 118, 7, 8, 170, 23, 88, 90, 9};
    static final float[] OUT = {0.0f, 1.0f, -1.5f, 448.0f, 448.0f, 448.0f, 448.0f, 0.0f, 0.0f, 0.001953125f,
            0.00390625f, 3.25f, 240.0f, 224.0f, 0.013671875f, 0.015625f, -0.3125f, 0.05859375f, 16.0f, 20.0f,
            0.017578125f};

    @Test
    void encodesAndDecodesAsPyTorch() {
        for (int i = 0; i < IN.length; i++) {
            byte b = Fp8.encode(IN[i]);
            assertEquals(BITS[i], b & 0xFF, "bits of " + IN[i]);
            assertEquals(OUT[i], Fp8.decode(b), "value of " + IN[i]);
        }
    }

    @Test
    void everyFiniteCodeRoundTripsAndNaNStaysNaN() {
        for (int b = 0; b < 256; b++) {
            float v = Fp8.decode((byte) b);
            if ((b & 0x7F) == 0x7F) {
                assertTrue(Float.isNaN(v), "code " + b);
                assertTrue(Float.isNaN(Fp8.decode(Fp8.encode(Float.NaN))));
                continue;
            }
            int back = Fp8.encode(v) & 0xFF;
            // -0 encodes as 0x80 and decodes as -0.0: same code either way
            assertEquals(b, back, "code " + b + " = " + v);
        }
    }

    @Test
    void aScaledTensorUsesTheWholeRange() {
        float[] v = {-3f, 0.5f, 1.5f, 3f};
        float s = Fp8.scaleFor(3f);
        byte[] b = Fp8.encode(v, s);
        assertEquals(448f * s, Fp8.decode(b[3]) * s, 1e-6);
        assertEquals(-3f, Fp8.decode(b[0]) * s, 1e-6);
        assertEquals(1f, Fp8.scaleFor(0f));
    }
}
