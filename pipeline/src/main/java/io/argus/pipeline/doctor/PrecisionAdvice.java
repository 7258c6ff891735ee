package io.argus.pipeline.doctor;

import io.argus.detector.cpu.CpuInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The fastest CPU precision this machine runs ({@code models[].cpu.precision}), with the speed-up we measured on a
 * CPU of its kind (docs/benchmarks.md, yolov4-tiny batch 1, medians of three runs) or, where we measured none, the
 * command that measures it. A precision counts only when the CPU has the instructions (/proc/cpuinfo) and oneDNN
 * dispatches to them (a VM may hide AMX or AVX-512 state: oneDNN then uses less than the flags say).
 */
final class PrecisionAdvice {
    /** What we measured on one kind of CPU: ms/image of each precision in three runs (empty: not measured). */
    record Measured(String machine, double[] fp32, double[] bf16, double[] int8, String source) {
        double speedUp(double[] reduced) { return median(fp32) / median(reduced); }

        static double median(double[] runs) {
            double[] s = runs.clone();
            Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        }
    }

    /** AMX (BF16 and INT8 tiles): the Intel Xeon rows of docs/benchmarks.md (INT8: its two idle repeats). */
    static final Measured AMX = new Measured("an Intel Xeon with AMX (family 6 model 167)",
            new double[] {23.78, 26.22, 24.73}, new double[] {7.74, 8.05, 8.41}, new double[] {6.57, 6.53},
            "docs/benchmarks.md, 2026-11-25");
    /** AVX512_BF16 and AVX512-VNNI without AMX: the Zen 5 rows of docs/benchmarks.md. */
    static final Measured AVX512_BF16 = new Measured("an AMD EPYC Zen 5 with AVX512_BF16 and AVX512-VNNI, no AMX",
            new double[] {25.30, 25.47, 22.92}, new double[] {13.80, 13.62, 12.39}, new double[] {8.73, 8.53, 8.54},
            "docs/benchmarks.md, 2026-11-28");

    /** The command that measures {@code precisions} here. */
    static String measure(String precisions) {
        return "measure with `argus bench --backend cpu --precision " + precisions + "`";
    }

    private PrecisionAdvice() {}

    /**
     * The finding for {@code cpu} whose oneDNN dispatches to {@code oneDnnIsa} (e.g. "avx512_core_amx"; null when
     * oneDNN cannot be loaded: the flags alone then decide); null when only fp32 runs here.
     */
    static Finding of(CpuInfo cpu, String oneDnnIsa) {
        String isa = oneDnnIsa == null ? null : oneDnnIsa.toLowerCase(Locale.ROOT);
        boolean bf16 = cpu.hasBf16() && (isa == null || dispatchesBf16(isa));
        boolean int8 = cpu.hasInt8Dot() && (isa == null || dispatchesInt8(isa));
        if (!bf16 && !int8) {
            if (cpu.hasBf16() || cpu.hasInt8Dot()) {
                return Finding.info("CPU precision", "this CPU has " + String.join(" ", reducedFlags(cpu))
                        + " but oneDNN uses " + oneDnnIsa + " (in a VM, pass the host CPU model through): fp32; "
                        + measure(supported(cpu.hasBf16(), cpu.hasInt8Dot())) + " to see");
            }
            return null;
        }
        Measured m = isa != null && isa.contains("amx") && cpu.flags().contains("amx_bf16") ? AMX
                : isa != null && isa.contains("bf16") && !isa.contains("amx") && bf16 && int8 ? AVX512_BF16 : null;
        List<String> choices = new ArrayList<>();
        if (int8) choices.add("int8" + (m != null ? " " + figure(m, m.int8()) : "") + " (needs models[].cpu.calibration)");
        if (bf16) choices.add("bf16" + (m != null ? " " + figure(m, m.bf16()) : "") + " (no calibration)");
        String found = "fastest first: " + String.join(", ", choices) + " instead of fp32; set models[].cpu.precision"
                + (m != null ? " (measured on " + m.machine() + ", yolov4-tiny batch 1, " + m.source() + ")"
                : "; no figure of ours for this CPU: " + measure(supported(bf16, int8)));
        return Finding.info("CPU precision", found);
    }

    private static String supported(boolean bf16, boolean int8) {
        return "fp32" + (bf16 ? ",bf16" : "") + (int8 ? ",int8" : "");
    }

    private static String figure(Measured m, double[] reduced) {
        return String.format(Locale.ROOT, "%.1fx faster (%.1f -> %.1f ms/image)", m.speedUp(reduced),
                Measured.median(m.fp32()), Measured.median(reduced));
    }

    /** oneDNN's BF16 kernels: AVX512_BF16 (avx512_core_bf16), AVX512_FP16 (a superset) or AMX; AVX10 has them too. */
    static boolean dispatchesBf16(String isa) {
        return isa.contains("bf16") || isa.contains("amx") || isa.contains("avx512_core_fp16") || isa.startsWith("avx10");
    }

    /** oneDNN's 8-bit dot products: any VNNI level (avx2_vnni, avx512_core_vnni) and everything above it. */
    static boolean dispatchesInt8(String isa) {
        return isa.contains("vnni") || dispatchesBf16(isa);
    }

    private static List<String> reducedFlags(CpuInfo cpu) {
        return cpu.relevantFlags().stream().filter(f -> f.contains("bf16") || f.contains("vnni") || f.contains("amx"))
                .toList();
    }
}
