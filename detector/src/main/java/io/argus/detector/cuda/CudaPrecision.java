package io.argus.detector.cuda;

import java.util.Locale;

/**
 * The number type of a CUDA network's convolutions ({@code models[].cuda.precision}). Every other layer, the network's
 * input and its outputs stay FP16 in each mode; accumulation is FP32.
 */
public enum CudaPrecision {
    /** FP16 tensor cores throughout. */
    FP16,
    /**
     * FP8 E4M3 (compute capability 8.9 and later) for every convolution cuDNN has an FP8 engine for: its input quantized
     * with one scale per tensor, measured on sample frames as the CPU's INT8 calibration measures it, its filters with
     * one per output channel; it writes FP16. A convolution over the image's 3 channels, a grouped one or one whose
     * channels are not a multiple of 16 stays FP16.
     */
    FP8,
    /**
     * Each convolution in FP8 where that form (the input's quantization included) was timed faster than FP16 at the
     * largest batch when the network opened, else FP16; FP16 throughout on a GPU without FP8 tensor cores.
     */
    AUTO;

    /** "fp16", "fp8" or "auto" (any case). */
    public static CudaPrecision parse(String s) {
        for (CudaPrecision p : values()) if (p.name().equalsIgnoreCase(s.strip())) return p;
        throw new IllegalArgumentException("CUDA precision: expected fp16, fp8 or auto, found \"" + s + "\"");
    }

    /** Whether the network measures activation ranges and may run FP8 convolutions. */
    public boolean quantizes() { return this != FP16; }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
