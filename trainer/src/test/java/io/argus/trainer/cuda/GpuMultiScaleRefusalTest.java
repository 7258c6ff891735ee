package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import io.argus.trainer.data.TrainingBatch;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Multi-scale training is CPU-only for now: the GPU backend refuses the sizes before the first pass, saying how to turn
 * multi-scale off, and a batch at another size than the cfg's is refused rather than read as the wrong images.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuMultiScaleRefusalTest {
    @Test
    void theGpuRefusesOtherInputSizes() {
        GpuTests.assumeGpu();
        NetworkSpec spec = GpuTests.spec("ms", TinyTrainingCfg.text(2) + "random=1\n");
        try (CudaTrainingBackend backend = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 5), 2,
                GpuTests.options(Precision.FP32))) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> backend.prepareInputSizes(List.of(spec.withInput(64, 64))));
            assertTrue(e.getMessage().contains("CPU-only for now") && e.getMessage().contains("--multi-scale off"),
                    e.getMessage());
            TrainingBatch cfgSize = GpuTests.batch(spec, 2, 1);
            TrainingBatch other = new TrainingBatch(new float[2 * 3 * 64 * 64], cfgSize.truths(), 2, 64, 64);
            var wrong = assertThrows(IllegalArgumentException.class, () -> backend.forwardBackward(other, 1f));
            assertTrue(wrong.getMessage().contains("a batch at 64x64"), wrong.getMessage());
        }
    }
}
