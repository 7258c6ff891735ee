package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.CudaUnavailableException;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** Without a usable GPU: CUDA fails with a message naming what is missing; AUTO falls back to the CPU. */
@Budget(seconds = 5)
class CudaUnavailableTest {
    private static Model tiny() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 64, 64);
        return new Model(spec, WeightsInit.darknet(spec, 1), Model.genericNames(spec.classes()));
    }

    @Test
    void cudaNamesTheMissingLibraryOrDriver() {
        assumeFalse(CudaRuntime.available(), "a CUDA GPU is present");
        String problem = CudaRuntime.problem();
        assertTrue(problem.contains("libcuda") || problem.contains("libcudart") || problem.contains("libcudnn")
                || problem.contains("libnvrtc") || problem.contains("driver") || problem.contains("device"), problem);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class,
                () -> Detector.open(tiny(), new Detector.Options(Detector.Backend.CUDA, 1, DetectParams.DEFAULT)));
        assertEquals(problem, e.getMessage());
    }

    @Test
    void autoFallsBackToTheCpu() {
        assumeFalse(CudaRuntime.available(), "a CUDA GPU is present");
        try (Detector d = Detector.open(tiny(), new Detector.Options(Detector.Backend.AUTO, 1, DetectParams.DEFAULT))) {
            assertEquals("cpu", d.backendName());
        }
    }
}
