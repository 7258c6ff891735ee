package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuStream;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Live detection and a fine-tune share a GPU: the detector's stream is created at the device's greatest priority,
 * a LOWEST stream (the trainer's) at its least, and the options passed to {@link Detector#open} are the ones the
 * backend runs with.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuStreamPriorityTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @Test
    void detectionRunsAtTheGreatestPriorityTrainingAtTheLeast() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 160, 160);
        Model model = new Model(spec, WeightsInit.darknet(spec, 1), Model.genericNames(spec.classes()));
        CudaOptions options = CudaOptions.defaults().withMemory(MemoryMode.DEVICE).withAutotune(1);
        try (Detector d = Detector.open(model, new Detector.Options(Detector.Backend.AUTO, 1, DetectParams.DEFAULT,
                options))) {
            assertEquals("cuda", d.backendName());
            CudaBackend cuda = (CudaBackend) d.backend();
            assertEquals(options, cuda.options(), "the options given to Detector.open");
            assertEquals(MemoryMode.DEVICE, cuda.memoryMode());
            cuda.network().device().makeCurrent();
            int[] range = GpuStream.priorityRange();
            assertTrue(range[1] <= range[0], "greatest priority is the smaller number: " + range[0] + ", " + range[1]);
            assertEquals(range[1], cuda.network().stream().priority(), "detection at the greatest priority");
            try (GpuStream low = new GpuStream(GpuStream.Priority.LOWEST)) {
                assertEquals(range[0], low.priority(), "a fine-tune's stream at the least priority");
            }
        }
    }
}
