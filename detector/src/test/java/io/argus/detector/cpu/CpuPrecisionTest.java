package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Precision names; BF16 and INT8 refused with the CPU named where the CPU has not the instructions; INT8 refused
 * without calibration frames, and its calibration read from a folder or a list with errors naming what is wrong.
 */
@Budget(seconds = 5)
class CpuPrecisionTest {
    @Test
    void parsesNamesAndRefusesOthers() {
        assertEquals(CpuPrecision.FP32, CpuPrecision.parse("fp32"));
        assertEquals(CpuPrecision.BF16, CpuPrecision.parse(" BF16 "));
        assertEquals(CpuPrecision.INT8, CpuPrecision.parse("int8"));
        assertEquals("expected fp32, bf16 or int8, found \"fp16\"",
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
    void int8NeedsTheInstructionsAndCalibration() {
        CpuInfo zen3 = new CpuInfo("AMD EPYC 7B13 64-Core Processor", "25", "1", "0", 2, Set.of("avx2", "fma"));
        assertEquals("CPU precision int8 needs AVX512-VNNI, AVX-VNNI or AMX-INT8; this CPU, AMD EPYC 7B13 64-Core "
                + "Processor (family 25 model 1), has none: use fp32",
                assertThrows(IllegalArgumentException.class, () -> CpuPrecision.INT8.requireSupport(zen3)).getMessage());
        CpuPrecision.INT8.requireSupport(new CpuInfo("AMD EPYC 9R14", "25", "17", "1", 2, Set.of("avx512_vnni")));
        CpuPrecision.INT8.requireSupport(new CpuInfo("Intel Core", "6", "151", "2", 2, Set.of("avx_vnni")));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuOptions.DEFAULTS.withPrecision(CpuPrecision.INT8))
                .getMessage().contains("int8 needs calibration frames (models[].cpu.calibration"));
    }

    @Test
    void calibrationImagesComeFromAFolderOrAList(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path samples = ProjectFiles.root().resolve("config/samples");
        assertEquals(2, Int8Calibration.readImages(samples, 2).size());
        java.nio.file.Path list = dir.resolve("train.txt");
        java.nio.file.Files.writeString(list, "# two of the samples\n" + samples.resolve("dog.jpg") + "\n\nmissing.jpg\n");
        assertEquals(list + ":4: no such image file missing.jpg (looked at " + dir.resolve("missing.jpg") + ")",
                assertThrows(IllegalArgumentException.class, () -> Int8Calibration.readImages(list, 64)).getMessage());
        java.nio.file.Files.writeString(list, samples.resolve("dog.jpg") + "\n");
        assertEquals(1, Int8Calibration.readImages(list, 64).size());
        java.nio.file.Path empty = java.nio.file.Files.createDirectory(dir.resolve("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Int8Calibration.readImages(empty, 64)).getMessage()
                .startsWith("INT8 calibration images: none in " + empty));
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
