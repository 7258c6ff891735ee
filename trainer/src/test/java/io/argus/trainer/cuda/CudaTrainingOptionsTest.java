package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The precision words of `argus bench train --precision` and what each sets. */
class CudaTrainingOptionsTest {
    @Test
    void modesSetPrecisionMathAndEngines() {
        CudaTrainingOptions mixed = CudaTrainingOptions.mode("mixed");
        assertEquals(Precision.MIXED, mixed.precision());
        assertTrue(mixed.graphEngines());
        assertEquals("mixed", mixed.modeName());

        CudaTrainingOptions fp32 = CudaTrainingOptions.mode("FP32");
        assertEquals(Precision.FP32, fp32.precision());
        assertTrue(fp32.strictFp32());
        assertEquals("fp32", fp32.modeName());

        CudaTrainingOptions tf32 = CudaTrainingOptions.mode(" tf32 ");
        assertFalse(tf32.strictFp32());
        assertEquals("tf32", tf32.modeName());

        CudaTrainingOptions legacy = CudaTrainingOptions.mode("fp32-legacy");
        assertFalse(legacy.graphEngines());
        assertTrue(legacy.strictFp32());
        assertEquals("fp32-legacy", legacy.modeName());
        assertEquals("mixed-legacy", CudaTrainingOptions.mode("mixed-legacy").modeName());
    }

    @Test
    void unknownWordIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> CudaTrainingOptions.mode("fp8"));
    }
}
