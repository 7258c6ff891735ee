package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_bf16;
import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;

import java.util.Locale;

/**
 * The number type of a CPU network's activations and weights ({@code models[].cpu.precision}). Accumulation is FP32
 * in every mode; biases stay FP32; the network's input and the [yolo] heads are FP32 whatever the mode.
 */
public enum CpuPrecision {
    /** Exact to the engine's equivalence tolerances against OpenCV and Darknet. */
    FP32(dnnl_f32, 4),
    /** BF16 weights and activations (8 bits of mantissa): AVX512_BF16 or AMX-BF16 only. */
    BF16(dnnl_bf16, 2);

    /** oneDNN's data type. */
    final int dnnlType;
    /** Bytes per element. */
    final int bytes;

    CpuPrecision(int dnnlType, int bytes) {
        this.dnnlType = dnnlType;
        this.bytes = bytes;
    }

    /** "fp32" or "bf16"; "int8" is named as not available yet. */
    public static CpuPrecision parse(String s) {
        String v = s.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "fp32" -> FP32;
            case "bf16" -> BF16;
            case "int8" -> throw new IllegalArgumentException("int8 is not available yet (it needs calibration, "
                    + "docs/cpu.md); expected fp32 or bf16");
            default -> throw new IllegalArgumentException("expected fp32 or bf16, found \"" + s + "\"");
        };
    }

    /** Refuses a precision this CPU has no instructions for, naming the CPU. */
    void requireSupport(CpuInfo cpu) {
        if (this == BF16 && !cpu.hasBf16()) {
            throw new IllegalArgumentException("CPU precision bf16 needs AVX512_BF16 or AMX-BF16; this CPU, "
                    + cpu.describe() + ", has neither: use fp32");
        }
    }

    @Override
    public String toString() { return name().toLowerCase(Locale.ROOT); }
}
