package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * CPU training runs in FP32; asking for BF16 is refused with the reason: on a CPU without AVX512_BF16 or AMX the
 * message names the CPU and the instructions it lacks, elsewhere it says BF16 training is not implemented. INT8
 * training is refused too. Budget: 1 s.
 */
@Budget(seconds = 5)
class TrainingPrecisionGateTest {
    @Test
    void fp32IsTrainedOthersAreRefusedWithTheReason() {
        assertDoesNotThrow(() -> CpuTrainingNetwork.requirePrecision(CpuPrecision.FP32));
        CpuInfo cpu = CpuInfo.current();
        String bf16 = assertThrows(IllegalArgumentException.class,
                () -> CpuTrainingNetwork.requirePrecision(CpuPrecision.BF16)).getMessage();
        if (cpu.hasBf16()) {
            assertTrue(bf16.contains("bf16 training is not implemented"), bf16);
        } else {
            assertTrue(bf16.contains("AVX512_BF16") && bf16.contains(cpu.describe()), bf16);
        }
        assertThrows(IllegalArgumentException.class, () -> CpuTrainingNetwork.requirePrecision(CpuPrecision.INT8));
    }
}
