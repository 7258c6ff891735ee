package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_bf16;
import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_s8;

import java.util.Locale;

/**
 * The number type of a CPU network's activations and weights ({@code models[].cpu.precision}). Accumulation is FP32
 * (INT8: 32-bit integers) in every mode; biases stay FP32; the network's input and the [yolo] heads are FP32 whatever
 * the mode.
 */
public enum CpuPrecision {
    /** Exact to the engine's equivalence tolerances against OpenCV and Darknet. */
    FP32(dnnl_f32, 4),
    /** BF16 weights and activations (8 bits of mantissa): AVX512_BF16 or AMX-BF16 only. */
    BF16(dnnl_bf16, 2),
    /**
     * Signed 8-bit weights (a scale per output channel) and activations (a scale per tensor, measured on sample
     * frames: {@link Int8Calibration}): AVX512-VNNI, AVX-VNNI or AMX-INT8 only. The convolutions feeding [yolo]
     * write FP32.
     */
    INT8(dnnl_s8, 1);

    /** oneDNN's data type. */
    final int dnnlType;
    /** Bytes per element. */
    final int bytes;

    CpuPrecision(int dnnlType, int bytes) {
        this.dnnlType = dnnlType;
        this.bytes = bytes;
    }

    /** "fp32", "bf16" or "int8". */
    public static CpuPrecision parse(String s) {
        String v = s.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "fp32" -> FP32;
            case "bf16" -> BF16;
            case "int8" -> INT8;
            default -> throw new IllegalArgumentException("expected fp32, bf16 or int8, found \"" + s + "\"");
        };
    }

    /** Refuses a precision this CPU has no instructions for, naming the CPU. */
    void requireSupport(CpuInfo cpu) {
        if (this == BF16 && !cpu.hasBf16()) {
            throw new IllegalArgumentException("CPU precision bf16 needs AVX512_BF16 or AMX-BF16; this CPU, "
                    + cpu.describe() + ", has neither: use fp32");
        }
        if (this == INT8 && !cpu.hasInt8Dot()) {
            throw new IllegalArgumentException("CPU precision int8 needs AVX512-VNNI, AVX-VNNI or AMX-INT8; this CPU, "
                    + cpu.describe() + ", has none: use fp32");
        }
    }

    @Override
    public String toString() { return name().toLowerCase(Locale.ROOT); }
}
