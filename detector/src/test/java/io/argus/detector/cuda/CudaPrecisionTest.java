package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The CUDA precision's words and the options' rule that FP8 comes with calibration frames (no GPU needed). */
@Budget(seconds = 2)
class CudaPrecisionTest {
    @Test
    void wordsParseInAnyCaseAndOthersAreNamed() {
        assertEquals(CudaPrecision.FP16, CudaPrecision.parse("fp16"));
        assertEquals(CudaPrecision.FP8, CudaPrecision.parse(" FP8 "));
        assertEquals(CudaPrecision.AUTO, CudaPrecision.parse("Auto"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CudaPrecision.parse("fp4"));
        assertEquals("CUDA precision: expected fp16, fp8 or auto, found \"fp4\"", e.getMessage());
    }

    @Test
    void fp8AndAutoNeedCalibrationFrames() {
        CudaOptions d = CudaOptions.defaults();
        assertEquals(CudaPrecision.FP16, d.precision());
        for (CudaPrecision p : new CudaPrecision[] {CudaPrecision.FP8, CudaPrecision.AUTO}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.withPrecision(p, null));
            assertTrue(e.getMessage().contains("needs calibration frames"), e.getMessage());
        }
        CudaOptions fp8 = d.withPrecision(CudaPrecision.FP8, Path.of("frames"));
        assertEquals(Path.of("frames"), fp8.calibration());
        assertEquals(CudaPrecision.FP8, fp8.withDevice(1).precision(), "with* keep the precision");
        assertEquals(Path.of("frames"), fp8.withMemory(io.argus.gpu.MemoryMode.DEVICE).calibration());
    }
}
