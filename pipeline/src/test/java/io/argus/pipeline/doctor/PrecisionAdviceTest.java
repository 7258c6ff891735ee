package io.argus.pipeline.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.cpu.CpuInfo;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code argus doctor} names the fastest CPU precision from the CPU's flags and the ISA oneDNN dispatches to, with our
 * measured speed-up where we have one for that kind of CPU (figures that docs/benchmarks.md holds) and the command
 * that measures it where we have none.
 */
@Budget(seconds = 5)
class PrecisionAdviceTest {
    static CpuInfo cpu(String flags) {
        return CpuInfo.parse("processor\t: 0\nmodel name\t: Test CPU\ncpu family\t: 6\nmodel\t\t: 1\nstepping\t: 1\n"
                + "flags\t\t: fpu sse4_1 avx2 fma " + flags + "\n");
    }

    @Test
    void amxGetsInt8AndBf16WithTheXeonFigures() {
        Finding f = PrecisionAdvice.of(cpu("avx512f avx512_vnni avx512_bf16 amx_tile amx_bf16 amx_int8"), "avx512_core_amx");
        assertEquals(Status.INFO, f.status());
        assertEquals("fastest first: int8 3.8x faster (24.7 -> 6.6 ms/image) (needs models[].cpu.calibration), bf16 3.1x "
                + "faster (24.7 -> 8.1 ms/image) (no calibration) instead of fp32; set models[].cpu.precision (measured "
                + "on an Intel Xeon with AMX (family 6 model 167), yolov4-tiny batch 1, docs/benchmarks.md, 2026-11-25)",
                f.found());
    }

    @Test
    void avx512Bf16WithoutAmxGetsTheZen5Figures() {
        Finding f = PrecisionAdvice.of(cpu("avx512f avx512_vnni avx512_bf16"), "avx512_core_bf16");
        assertTrue(f.found().startsWith("fastest first: int8 3.0x faster (25.3 -> 8.5 ms/image)"), f.found());
        assertTrue(f.found().contains("bf16 1.9x faster (25.3 -> 13.6 ms/image)"), f.found());
        assertTrue(f.found().contains("Zen 5"), f.found());
    }

    @Test
    void vnniAloneGetsInt8AndTheCommandThatMeasuresIt() {
        Finding f = PrecisionAdvice.of(cpu("avx_vnni"), "avx2_vnni");
        assertEquals("fastest first: int8 (needs models[].cpu.calibration) instead of fp32; set models[].cpu.precision; "
                + "no figure of ours for this CPU: measure with `argus bench --backend cpu --precision fp32,int8`",
                f.found());
        assertTrue(f.found().contains("argus bench"));
    }

    @Test
    void flagsOneDnnDoesNotUseOrNoFlagsAtAll() {
        Finding hidden = PrecisionAdvice.of(cpu("avx512f avx512_vnni avx512_bf16 amx_bf16"), "avx2");
        assertTrue(hidden.found().startsWith("this CPU has avx512_vnni avx512_bf16 amx_bf16 but oneDNN uses avx2"),
                hidden.found());
        assertTrue(hidden.found().endsWith("`argus bench --backend cpu --precision fp32,bf16,int8` to see"),
                hidden.found());
        assertNull(PrecisionAdvice.of(cpu(""), "avx2"), "fp32 is all there is: nothing to advise");
        Finding noOneDnn = PrecisionAdvice.of(cpu("avx512_bf16 avx512_vnni"), null);
        assertTrue(noOneDnn.found().contains("bf16") && noOneDnn.found().contains("argus bench"),
                "without oneDNN's ISA the flags decide, and no figure is claimed: " + noOneDnn.found());
    }

    /** Every figure quoted is one docs/benchmarks.md holds, in the same order: none invented, none stale. */
    @Test
    void theQuotedFiguresAreTheDocumentedOnes() throws Exception {
        String doc = Files.readString(TestMedia.home().resolve("docs/benchmarks.md"));
        for (PrecisionAdvice.Measured m : new PrecisionAdvice.Measured[] {PrecisionAdvice.AMX, PrecisionAdvice.AVX512_BF16}) {
            for (double[] runs : new double[][] {m.fp32(), m.bf16(), m.int8()}) {
                String listed = Arrays.stream(runs).mapToObj(v -> String.format(Locale.ROOT, "%.2f", v))
                        .collect(Collectors.joining(", "));
                assertTrue(doc.contains(listed), "docs/benchmarks.md lists " + listed);
            }
        }
    }
}
