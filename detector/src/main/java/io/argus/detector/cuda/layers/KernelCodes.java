package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.YoloSpec.NmsKind;

/**
 * The integer codes kernels/*.cu use for activations (common.cuh) and NMS kinds (nms.cu). Here, beside the layers
 * that pass most of them, so that the layers, the backend above them and the trainer's kernels all reach it.
 */
public final class KernelCodes {
    private KernelCodes() {}

    /** Shared with the trainer's kernels (same common.cuh). */
    public static int activation(Activation a) {
        return switch (a) {
            case LINEAR -> 0;
            case LEAKY -> 1;
            case RELU -> 2;
            case LOGISTIC -> 3;
            case MISH -> 4;
            case SWISH -> 5;
        };
    }

    /** For nms.cu, launched by the backend's post-processing ({@code cuda/GpuPostprocess}). */
    public static int nms(NmsKind k) {
        return switch (k) {
            case DEFAULT -> 0;
            case GREEDY -> 1;
            case DIOU -> 2;
            case CORNERS -> 3;
        };
    }
}
