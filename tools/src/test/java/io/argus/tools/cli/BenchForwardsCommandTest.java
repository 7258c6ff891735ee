package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * `argus bench forwards` (the forward alone, for a kernel profiler): bad counts stop it with a message before any GPU
 * is touched; without a GPU it says why CUDA is missing. What it runs is profiled on the GPU host
 * (scripts/gpu/run-gpu.sh profile).
 */
@Budget(seconds = 5)
class BenchForwardsCommandTest {
    private static final String CFG = "config/models/cfg/yolov4-tiny.cfg";

    @Test
    void aBatchOrRunCountBelowOneIsRefused() {
        ArgusRun.Result r = ArgusRun.argus("bench", "forwards", "--cfg", CFG, "--batch", "0");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().strip().endsWith("--batch: expected at least 1, found 0"), r.err());
        r = ArgusRun.argus("bench", "forwards", "--cfg", CFG, "--runs", "-1");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().strip().endsWith("--runs: expected at least 1, found -1"), r.err());
    }

    @Test
    void withoutAGpuTheReasonIsPrinted() {
        assumeFalse(CudaRuntime.available(), "a GPU is present");
        ArgusRun.Result r = ArgusRun.argus("bench", "forwards", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("NVIDIA"), r.err());
    }
}
