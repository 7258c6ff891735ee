package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.*;

/**
 * Which engines a convolution may run, by their numerical notes, as PyTorch filters them: never one that reduces in
 * reduced precision or down-converts its inputs (both change results beyond FP32 accumulation), and no tensor-core
 * engine where the numerics forbid it (IEEE FP32: a TF32 engine would pass as FP32).
 */
final class EngineFilter {
    private EngineFilter() {}

    /** "12 tc winograd" for logs, or null when the notes rule the engine out. */
    static String describe(long index, int[] notes, Numerics numerics) {
        StringBuilder s = new StringBuilder("engine " + index);
        for (int note : notes) {
            if (note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) return null;
            if (note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return null;
            if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) {
                if (!numerics.tensorCores()) return null;
                s.append(" tc");
            }
            if (note == CUDNN_NUMERICAL_NOTE_WINOGRAD) s.append(" winograd");
            if (note == CUDNN_NUMERICAL_NOTE_FFT) s.append(" fft");
        }
        return s.toString();
    }
}
