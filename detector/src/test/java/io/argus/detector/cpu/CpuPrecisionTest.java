package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Precision names, and BF16 refused with the CPU named where the CPU has no BF16 instructions. */
class CpuPrecisionTest {
    @Test
    void parsesNamesAndRefusesOthers() {
        assertEquals(CpuPrecision.FP32, CpuPrecision.parse("fp32"));
        assertEquals(CpuPrecision.BF16, CpuPrecision.parse(" BF16 "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuPrecision.parse("int8")).getMessage()
                .contains("int8 is not available yet"));
        assertEquals("expected fp32 or bf16, found \"fp16\"",
                assertThrows(IllegalArgumentException.class, () -> CpuPrecision.parse("fp16")).getMessage());
    }

    @Test
    void bf16NeedsTheInstructions() {
        CpuInfo zen3 = new CpuInfo("AMD EPYC 7B13 64-Core Processor", "25", "1", "0", 2, Set.of("avx2", "fma", "sse4_1"));
        String message = assertThrows(IllegalArgumentException.class, () -> CpuPrecision.BF16.requireSupport(zen3)).getMessage();
        assertEquals("CPU precision bf16 needs AVX512_BF16 or AMX-BF16; this CPU, AMD EPYC 7B13 64-Core Processor "
                + "(family 25 model 1), has neither: use fp32", message);
        CpuPrecision.FP32.requireSupport(zen3);
        CpuPrecision.BF16.requireSupport(new CpuInfo("AMD EPYC 9R14", "25", "17", "1", 2, Set.of("avx512f", "avx512_bf16")));
        CpuPrecision.BF16.requireSupport(new CpuInfo("Intel Xeon", "6", "143", "8", 2, Set.of("amx_bf16")));
    }

    @Test
    void aNetworkTellsWhatEachConvolutionRuns() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 96, 96);
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 1), 1)) {
            assertTrue(net.convolutionChoices(1).isEmpty(), "nothing chosen before the first forward");
            net.forward(1);
            var choices = net.convolutionChoices(1);
            assertEquals(spec.layers().stream().filter(l -> l.kind().equals("convolutional")).count(), choices.size());
            for (var c : choices) assertTrue(c.implementation().startsWith("direct|") || c.implementation().startsWith("winograd|"), c.toString());
        }
    }
}
