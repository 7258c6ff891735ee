package io.argus.pipeline.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.backends.Detector.Backend;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** cameras[].decoder against where the model runs: auto takes NVDEC only for a model on CUDA, on its device. */
@Budget(seconds = 5)
class DecoderChoiceTest {
    static final String NO_GPU = "no CUDA device found";

    @Test
    void autoFollowsTheModel() throws Exception {
        DecoderChoice gpu = DecoderChoice.of("c", DecoderMode.AUTO, Backend.CUDA, 1, null);
        assertTrue(gpu.nvdec());
        assertEquals(1, gpu.device());
        assertTrue(DecoderChoice.of("c", DecoderMode.AUTO, Backend.AUTO, 0, null).nvdec());
        // a model on the CPU: the CPU decoder is auto's choice, not a refusal of NVDEC (no fallback to count)
        DecoderChoice cpuModel = DecoderChoice.of("c", DecoderMode.AUTO, Backend.CPU, 0, null);
        assertFalse(cpuModel.nvdec());
        assertEquals(null, cpuModel.reason());
        assertEquals("the camera's model runs on the CPU", cpuModel.detail());
        assertEquals("the camera's model runs on the CPU", DecoderChoice.of("c", DecoderMode.AUTO, Backend.CPU, 0, NO_GPU)
                .detail(), "a model configured for the CPU is the reason, CUDA or not");
        DecoderChoice noCuda = DecoderChoice.of("c", DecoderMode.AUTO, Backend.AUTO, 0, NO_GPU);
        assertFalse(noCuda.nvdec());
        assertEquals(null, noCuda.reason());
        assertEquals(NO_GPU, noCuda.detail());
    }

    @Test
    void cpuIsCpu() throws Exception {
        DecoderChoice c = DecoderChoice.of("c", DecoderMode.CPU, Backend.CUDA, 0, null);
        assertFalse(c.nvdec());
        assertEquals(null, c.reason());
    }

    @Test
    void explicitNvdecIsRefusedWithTheCameraAndTheReason() {
        NvdecRefusal e = assertThrows(NvdecRefusal.class, () -> DecoderChoice.of("door", DecoderMode.NVDEC, Backend.CPU, 0, null));
        assertEquals(NvdecRefusal.Reason.MODEL_ON_CPU, e.reason());
        assertEquals("camera door: NVDEC decoder refused (model_on_cpu): the camera's model runs on the CPU", e.getMessage());
        NvdecRefusal e2 = assertThrows(NvdecRefusal.class, () -> DecoderChoice.of("door", DecoderMode.NVDEC, Backend.CUDA, 0, NO_GPU));
        assertEquals(NvdecRefusal.Reason.NO_CUDA, e2.reason());
    }
}
