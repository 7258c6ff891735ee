package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.cudnn.ConvolutionPlanner;
import io.argus.testkit.Budget;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The planning transient: while cuDNN's candidates are timed the workspace grows only to what they need, bounded by
 * a tenth of the set-up's memory beyond the workspace already chosen, so the peak stays within 1.1x of the steady
 * state (yolov4-tiny 416, the bench's shape; it was 1.64x with a planning workspace of min(limit, free/2)).
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuPlanningPeakTest {
    @Test
    void planningPeakWithinATenthOfTheSteadyState() {
        GpuTests.assumeGpu();
        NetworkSpec spec = GradientPlanTest.cfg("yolov4-tiny", 416);
        for (String mode : new String[] {"mixed", "fp32"}) {
            // autotuned like `argus bench train`, no disk cache, nothing planned in memory: every candidate timed
            ConvolutionPlanner.of(DeviceContext.of(0)).forgetPlans();
            CudaTrainingOptions options = CudaTrainingOptions.of(0, mode, true,
                    CudaTrainingOptions.DEFAULT_WORKSPACE_LIMIT, false, null);
            try (CudaTrainingBackend b = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 1), 64, options)) {
                double ratio = (double) b.peakAllocatedBytes() / b.steadyBytes();
                System.out.printf(Locale.ROOT, "%s: steady %.1f MiB, peak %.1f MiB (%.3fx); %s%n", mode,
                        b.steadyBytes() / 1048576.0, b.peakAllocatedBytes() / 1048576.0, ratio, b.planning());
                assertTrue(ratio <= 1.1, mode + ": planning peak " + ratio + "x the steady state");
            }
        }
    }
}
