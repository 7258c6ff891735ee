package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.cli.ProjectPaths;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * `argus bench train` is routed past bench's own options (it needs no --cfg), and without a GPU both it and
 * `argus train --backend cuda` stop with the reason CUDA is missing; a wrong backend name is a clear error.
 */
@Budget(seconds = 10)
class BenchTrainCommandTest {
    @Test
    void benchTrainHasItsOwnOptions() {
        ArgusRun.Result r = ArgusRun.argus("bench", "train", "--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("--curves") && r.out().contains("--precision"), r.out());
    }

    @Test
    void withoutAGpuTheReasonIsPrinted() {
        assumeFalse(CudaRuntime.available(), "a GPU is present");
        ArgusRun.Result r = ArgusRun.argus("bench", "train", "--precision", "mixed", "--seconds", "1");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("argus bench train: ") && r.err().contains("NVIDIA"), r.err());
    }

    @Test
    void cpuBackendTimesCpuTraining() {
        ArgusRun.Result r = ArgusRun.argus("bench", "train", "--backend", "cpu", "--cfg",
                ProjectPaths.home().resolve("config/models/demo.cfg").toString(), "--width", "64", "--height", "64",
                "--batch", "2", "--seconds", "0", "--warmup", "0");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("argus-train-cpu model=demo precision=fp32 batch=2") && r.out().contains("cpu_model="),
                r.out());
    }

    @Test
    void trainRejectsAnUnknownBackend() {
        ArgusRun.Result r = ArgusRun.argus("train", "--backend", "tpu", "--cfg", "x.cfg", "--data",
                "x.data", "--out", "out");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("--backend: expected cpu, cuda or auto, found tpu"), r.err());
    }

    @Test
    void gpuCountsAreCheckedBeforeAnyGpuIsAsked() {
        ArgusRun.Result zero = ArgusRun.argus("bench", "train", "--gpus", "1,0", "--seconds", "1");
        assertEquals(2, zero.code(), zero.out());
        assertTrue(zero.err().contains("--gpus: expected GPU counts >= 1, found 0"), zero.err());
        ArgusRun.Result cpu = ArgusRun.argus("train", "--gpus", "2", "--cfg", "x.cfg", "--data",
                "x.data", "--out", "out");
        assertEquals(2, cpu.code(), cpu.out());
        assertTrue(cpu.err().contains("--gpus 2 trains on GPUs: use --backend cuda"), cpu.err());
        ArgusRun.Result ranks = ArgusRun.argus("train", "--ranks", "0", "--cfg", "x.cfg", "--data",
                "x.data", "--out", "out");
        assertEquals(2, ranks.code(), ranks.out());
        assertTrue(ranks.err().contains("--ranks: expected >= 1, found 0"), ranks.err());
    }
}
