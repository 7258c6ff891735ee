package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** The precision words of `argus bench train --precision` and what each sets. */
@Budget(seconds = 5)
class CudaTrainingOptionsTest {
    @Test
    void modesSetPrecisionAndMath() {
        CudaTrainingOptions mixed = CudaTrainingOptions.mode("mixed");
        assertEquals(Precision.MIXED, mixed.precision());
        assertEquals(io.argus.gpu.cudnn.PlanCache.defaultDirectory(), mixed.planCache());
        assertEquals("mixed", mixed.modeName());

        CudaTrainingOptions fp32 = CudaTrainingOptions.mode("FP32");
        assertEquals(Precision.FP32, fp32.precision());
        assertTrue(fp32.strictFp32());
        assertEquals("fp32", fp32.modeName());

        CudaTrainingOptions tf32 = CudaTrainingOptions.mode(" tf32 ");
        assertFalse(tf32.strictFp32());
        assertEquals("tf32", tf32.modeName());

    }

    @Test
    void unknownWordIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> CudaTrainingOptions.mode("fp8"));
        // the legacy cuDNN API is gone, and with it the -legacy modes
        assertThrows(IllegalArgumentException.class, () -> CudaTrainingOptions.mode("fp32-legacy"));
    }
}
