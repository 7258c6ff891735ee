package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `argus eval` on the demo model and a small synthetic dataset: the CPU scores it and says which backend and precision
 * it ran; a backend or a precision the backend does not have is refused naming the option, what it expected and what
 * it found; the CUDA backend without a GPU says what is missing (its scores on a GPU are GpuFp8DemoModelTest's).
 */
@Budget(seconds = 20)
class EvalCommandTest {
    @TempDir
    Path tmp;

    @Test
    void backendsAndPrecisionsAreNamedAndCheckedBeforeAnyImageIsScored() {
        Path data = SyntheticScenes.write(tmp, 20, 7, 128, 0.5);
        Path models = TestMedia.home().resolve("config/models");
        String[] model = {"eval", "--cfg", models.resolve("demo.cfg").toString(), "--weights",
                models.resolve("demo.weights").toString(), "--data", data.toString()};
        ArgusRun.Result cpu = ArgusRun.argus(concat(model, "--batch", "4"));
        assertEquals(0, cpu.code(), cpu.err());
        assertTrue(cpu.out().contains("10 images") && cpu.out().contains("cpu fp32"), cpu.out());
        assertTrue(cpu.out().strip().matches("(?s).*mAP@0\\.5 = \\d\\.\\d{4}"), cpu.out());

        ArgusRun.Result tpu = ArgusRun.argus(concat(model, "--backend", "tpu"));
        assertTrue(tpu.code() != 0, tpu.out());
        assertTrue(tpu.err().contains("--backend: expected cpu or cuda, found \"tpu\""), tpu.err());
        ArgusRun.Result int8 = ArgusRun.argus(concat(model, "--backend", "cuda", "--precision", "int8"));
        assertTrue(int8.code() != 0, int8.out());
        assertTrue(int8.err().contains("--precision: expected fp16, fp8 or auto, found \"int8\" (the cuda backend's "
                + "precisions)"), int8.err());
        ArgusRun.Result fp8 = ArgusRun.argus(concat(model, "--precision", "fp8"));
        assertTrue(fp8.code() != 0, fp8.out());
        assertTrue(fp8.err().contains("fp8"), fp8.err());
        if (!CudaRuntime.available()) {
            ArgusRun.Result cuda = ArgusRun.argus(concat(model, "--backend", "cuda"));
            assertTrue(cuda.code() != 0, cuda.out());
            assertTrue(cuda.err().contains(CudaRuntime.problem()), cuda.err());
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
