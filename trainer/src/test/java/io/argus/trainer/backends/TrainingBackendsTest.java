package io.argus.trainer.backends;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.gpu.CudaRuntime;
import io.argus.testkit.Budget;
import io.argus.trainer.backends.TrainingBackends.Choice;
import io.argus.trainer.backends.TrainingBackends.Kind;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.cuda.Precision;
import io.argus.trainer.train.TrainingBackend;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Choosing the training backend: cpu is the CPU; auto is CUDA when the probe finds it usable, else the CPU with the
 * reason; cuda without a usable GPU fails naming the setting and the reason. Opening the CPU choice gives a backend
 * that reports where and how it trains.
 */
@Budget(seconds = 5)
class TrainingBackendsTest {
    static final String CFG = """
            [net]
            batch=2
            subdivisions=1
            width=32
            height=32
            channels=3
            [convolutional]
            filters=21
            size=1
            stride=1
            pad=1
            activation=linear
            [yolo]
            mask=0,1,2
            anchors=6,6, 10,10, 16,16
            classes=2
            num=3
            """;

    @Test
    void autoTakesCudaWhenUsableElseTheCpuSayingWhy() {
        assertEquals(new Choice(Kind.CUDA, null), TrainingBackends.choose(Kind.AUTO, "training.backend", () -> null));
        Choice cpu = TrainingBackends.choose(Kind.AUTO, "training.backend", () -> "no NVIDIA driver found");
        assertEquals(Kind.CPU, cpu.kind());
        assertEquals("training.backend auto: training on the CPU, CUDA is not usable: no NVIDIA driver found", cpu.note());
        assertEquals(new Choice(Kind.CPU, null), TrainingBackends.choose(Kind.CPU, "training.backend", () -> "unused"));
    }

    @Test
    void cudaWithoutAUsableGpuFailsNamingTheSettingAndTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TrainingBackends.choose(Kind.CUDA, "training.backend", () -> "no CUDA device found"));
        assertEquals("training.backend: cuda: CUDA is not usable here: no CUDA device found (use cpu, or auto to "
                + "fall back to the CPU)", e.getMessage());
        assertEquals(new Choice(Kind.CUDA, null), TrainingBackends.choose(Kind.CUDA, "--backend", () -> null));
    }

    @Test
    void onThisMachineWithoutAGpu() {
        assumeFalse(CudaRuntime.available(), "a CUDA GPU is present");
        Choice auto = TrainingBackends.choose(Kind.AUTO, "training.backend");
        assertEquals(Kind.CPU, auto.kind());
        assertTrue(auto.note().contains(CudaRuntime.problem()), auto.note());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TrainingBackends.choose(Kind.CUDA, "training.backend"));
        assertTrue(e.getMessage().startsWith("training.backend: cuda: CUDA is not usable here: "), e.getMessage());
    }

    @Test
    void kindsParseWithTheKeyInTheError() {
        assertEquals(Kind.AUTO, Kind.parse(" Auto ", "training.backend"));
        assertEquals("--backend: expected cpu, cuda or auto, found tpu",
                assertThrows(IllegalArgumentException.class, () -> Kind.parse("tpu", "--backend")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Choice(Kind.AUTO, null));
    }

    @Test
    void theCpuChoiceOpensTheCpuBackend() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("tiny.cfg"), CFG, 0, 0);
        CudaTrainingOptions unused = CudaTrainingOptions.defaults(Precision.MIXED);
        try (TrainingBackend b = TrainingBackends.open(new Choice(Kind.CPU, null), unused, spec,
                WeightsInit.darknet(spec, 1), 2, 1, false)) {
            assertEquals("cpu", b.kind());
            assertEquals("fp32", b.precision());
        }
        try (TrainingBackend b = TrainingBackends.open(new Choice(Kind.CPU, null), unused, spec,
                WeightsInit.darknet(spec, 1), 2, 1, true)) {
            assertEquals("mixed-emulated", b.precision());
        }
        assertNull(TrainingBackends.choose(Kind.CPU, "x").note());
    }
}
