package io.argus.gpu.cudnn;

import io.argus.gpu.ElementType;

/**
 * The arithmetic a convolution may use: its storage type (FP16 or FP32; accumulation is always FP32) and whether
 * tensor cores are allowed. FP16 and TF32 take them; IEEE FP32 ("strict") may not, so no TF32 engine slips in. FP8
 * E4M3 is the input's and the filter's storage only: the output (and bias, residual) stay FP16, and the epilogue
 * first multiplies each output channel by its scale (the input's times the filter's, {@link Operands#scale}).
 */
public record Numerics(ElementType storage, boolean tensorCores) {
    public static final Numerics HALF = new Numerics(ElementType.HALF, true);
    public static final Numerics IEEE_FLOAT = new Numerics(ElementType.FLOAT, false);
    public static final Numerics TF32 = new Numerics(ElementType.FLOAT, true);
    public static final Numerics FP8 = new Numerics(ElementType.FP8_E4M3, true);

    /** The output's (and bias's, residual's) storage: the storage itself, FP16 for FP8 inputs. */
    public ElementType output() {
        return storage == ElementType.FP8_E4M3 ? ElementType.HALF : storage;
    }

    /** FP8 inputs: the epilogue rescales every output channel. */
    public boolean scaled() {
        return storage == ElementType.FP8_E4M3;
    }

    String key() {
        return storage.name().toLowerCase(java.util.Locale.ROOT) + (tensorCores ? "+tc" : "");
    }
}
