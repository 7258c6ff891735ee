package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * `argus bench --backend cuda --gpus 1,2,4`: its help says what it measures, and bad input stops it with a message
 * before any GPU is touched (a count below 1, --gpus on the CPU backend, an unknown --frames); without a GPU it says why CUDA is missing.
 * The device-count bound and the measurement itself are tested in the detector's GpuScalingBenchTest.
 */
@Budget(seconds = 5)
class BenchGpusCommandTest {
    private static final String CFG = "config/models/cfg/yolov4-tiny.cfg";

    @Test
    void helpSaysItMeasuresWholeDetectCalls() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--help");
        assertEquals(0, r.code(), r.err());
        String help = r.out().replaceAll("\\s+", " ");
        assertTrue(help.contains("--gpus") && help.contains("whole detect calls") && help.contains("upload")
                && help.contains("NMS") && help.contains("scaling"), r.out());
    }

    @Test
    void gpusNeedsTheCudaBackend() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cpu", "--gpus", "1,2", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertEquals("argus bench: --gpus measures GPUs: it needs --backend cuda", r.err().strip());
    }

    @Test
    void aCountBelowOneIsRefused() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cuda", "--gpus", "2,0", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertEquals("argus bench: --gpus 0: expected GPU counts of at least 1", r.err().strip());
    }

    @Test
    void aBadInFlightIsRefused() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cuda", "--gpus", "1",
                "--in-flight", "0", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertEquals("argus bench: --in-flight: expected at least 1, found 0", r.err().strip());
    }

    @Test
    void anUnknownFramesKindIsRefused() {
        for (String gpus : new String[] {"--gpus=1", "--batch=8"}) {
            ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cuda", gpus, "--frames", "heap,disk", "--cfg", CFG);
            assertEquals(2, r.code(), r.out());
            assertEquals("argus bench: --frames: expected heap or pinned, found 'disk'", r.err().strip());
        }
    }

    @Test
    void withoutAGpuTheReasonIsPrinted() {
        assumeFalse(CudaRuntime.available(), "a GPU is present");
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cuda", "--gpus", "1,2", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("argus bench: ") && r.err().contains("NVIDIA"), r.err());
    }
}
