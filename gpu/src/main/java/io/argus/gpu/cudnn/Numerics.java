package io.argus.gpu.cudnn;

import io.argus.gpu.ElementType;

/**
 * The arithmetic a convolution may use: its storage type (FP16 or FP32; accumulation is always FP32) and whether
 * tensor cores are allowed. FP16 and TF32 take them; IEEE FP32 ("strict") may not, so no TF32 engine slips in.
 */
public record Numerics(ElementType storage, boolean tensorCores) {
    public static final Numerics HALF = new Numerics(ElementType.HALF, true);
    public static final Numerics IEEE_FLOAT = new Numerics(ElementType.FLOAT, false);
    public static final Numerics TF32 = new Numerics(ElementType.FLOAT, true);

    String key() {
        return storage.name().toLowerCase(java.util.Locale.ROOT) + (tensorCores ? "+tc" : "");
    }
}
