package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.CudaUnavailableException;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** Without a usable GPU the CUDA trainer refuses to open with the reason (library or driver), not a crash. */
@Budget(seconds = 5)
class CudaUnavailableTest {
    @Test
    void openingWithoutCudaNamesWhatIsMissing() {
        assumeFalse(CudaRuntime.available(), "a GPU is present: GpuLayerGradientTest and friends cover it");
        NetworkSpec spec = GpuTests.spec("none", GpuLossScalingTest.CFG);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> new CudaTrainingBackend(spec,
                WeightsInit.darknet(spec, 1), 2, CudaTrainingOptions.defaults(Precision.MIXED)));
        assertTrue(e.getMessage().contains("CUDA") || e.getMessage().contains("NVIDIA") || e.getMessage().contains("cuDNN"),
                e.getMessage());
    }
}
