package io.argus.trainer.cuda;

import io.argus.gpu.ElementType;
import java.util.Locale;

/**
 * How activations, gradients and the convolutions' weights are stored on the GPU. Master weights, their gradients,
 * momentum, batch-norm statistics and parameters are FP32 in both.
 * <ul>
 *   <li>{@link #MIXED}: FP16 activations, gradients and working weights; cuDNN on tensor cores with FP32
 *   accumulation; dynamic loss scaling keeps the gradients inside FP16's range;</li>
 *   <li>{@link #FP32}: everything FP32 (cuDNN may use TF32 tensor cores, as PyTorch does by default, unless
 *   {@link CudaTrainingOptions#strictFp32}).</li>
 * </ul>
 */
public enum Precision {
    MIXED(ElementType.HALF),
    FP32(ElementType.FLOAT);

    private final ElementType storage;

    Precision(ElementType storage) {
        this.storage = storage;
    }

    /** How activations, gradients and working weights are stored. */
    public ElementType storage() { return storage; }

    /** Bytes of one stored value. */
    public int bytes() { return storage.bytes(); }

    int cudnnType() { return storage.cudnnType(); }

    public static Precision parse(String word) {
        return switch (word.toLowerCase(Locale.ROOT)) {
            case "mixed", "fp16", "amp" -> MIXED;
            case "fp32" -> FP32;
            default -> throw new IllegalArgumentException("precision: expected mixed (fp16) or fp32, found " + word);
        };
    }

    @Override
    public String toString() { return this == MIXED ? "mixed (fp16)" : "fp32"; }
}
