package io.argus.trainer.cuda;

import io.argus.gpu.cudnn.PlanCache;
import java.nio.file.Path;

/**
 * Options of the CUDA training backend.
 *
 * @param device          CUDA device index
 * @param precision       storage of activations and gradients
 * @param strictFp32      FP32 only: IEEE FP32 convolutions (no tensor-core engine); false lets cuDNN use TF32 tensor
 *                        cores, as PyTorch does by default ("tf32")
 * @param autotune        time cuDNN's engine candidates on the real buffers instead of taking its first choice
 * @param workspaceLimit  the most cuDNN workspace one convolution plan may use (bytes; default 2 GiB: IEEE FP32's fast
 *                        NHWC engines need 0.3-1.1 GiB at yolov4-tiny 416 batch 64, and were 4.9x slower under 256 MiB;
 *                        one workspace is shared by all layers and sized to the largest chosen need)
 * @param overwriteGradients a convolution that is its input's only consumer writes the input gradient (cuDNN beta 0)
 *                        instead of adding to the cleared buffer (beta 1). On by default: cuDNN offers few engines
 *                        that add into dx; for IEEE FP32 yolov4-tiny's 3x3 stride-2 layer at batch 64 only its
 *                        generic engine 0 (56.6 ms of a 101 ms iteration on the H200)
 * @param planCache       directory where chosen cuDNN plans are kept between runs (null: none)
 */
public record CudaTrainingOptions(int device, Precision precision, boolean strictFp32, boolean autotune,
                                  long workspaceLimit, boolean overwriteGradients, Path planCache) {
    public CudaTrainingOptions {
        if (precision == null) throw new IllegalArgumentException("precision is required");
        if (device < 0) throw new IllegalArgumentException("device: expected an index >= 0, found " + device);
        if (workspaceLimit < 0) throw new IllegalArgumentException("workspaceLimit must be >= 0");
    }

    /**
     * The defaults: device 0, IEEE FP32 convolutions when FP32, autotuning, a 2 GiB workspace limit, input
     * gradients overwritten by their sole writer, plans kept in ~/.cache/argus/plans. A plain value: the pipeline
     * builds its options from {@code training.cuda}, the command line from the {@code -Dargus.cuda.*} properties; this
     * library reads no system properties.
     */
    public static CudaTrainingOptions defaults(Precision precision) {
        return new CudaTrainingOptions(0, precision, true, true, DEFAULT_WORKSPACE_LIMIT, true,
                PlanCache.defaultDirectory());
    }

    /** 2 GiB (see {@code workspaceLimit}). */
    public static final long DEFAULT_WORKSPACE_LIMIT = 2048L << 20;

    /** A mode word ({@link #of}) on the defaults. */
    public static CudaTrainingOptions mode(String word) {
        CudaTrainingOptions d = defaults(Precision.MIXED);
        return of(d.device, word, d.autotune, d.workspaceLimit, d.overwriteGradients, d.planCache);
    }

    /**
     * Options in a mode named by a word: "mixed" (or fp16: FP16 compute, FP32 masters), "fp32" (IEEE FP32
     * convolutions) or "tf32" (FP32 storage, TF32 tensor-core convolutions). The one place the words are read: the
     * pipeline's {@code training.cuda.precision}, {@code argus bench train --precision} and {@code argus train}.
     */
    public static CudaTrainingOptions of(int device, String mode, boolean autotune, long workspaceLimit,
                                         boolean overwriteGradients, Path planCache) {
        String w = mode.strip().toLowerCase(java.util.Locale.ROOT);
        Precision precision = switch (w) {
            case "mixed", "fp16", "amp" -> Precision.MIXED;
            case "fp32", "tf32" -> Precision.FP32;
            default -> throw new IllegalArgumentException("precision: expected mixed (fp16), fp32 or tf32, found "
                    + mode);
        };
        return new CudaTrainingOptions(device, precision, !w.equals("tf32"), autotune, workspaceLimit,
                overwriteGradients, planCache);
    }

    /** The same options on another GPU (a rank of a data-parallel run). */
    public CudaTrainingOptions withDevice(int index) {
        return new CudaTrainingOptions(index, precision, strictFp32, autotune, workspaceLimit, overwriteGradients,
                planCache);
    }

    /** The mode's name: mixed, fp32 or tf32. */
    public String modeName() {
        return precision == Precision.MIXED ? "mixed" : strictFp32 ? "fp32" : "tf32";
    }
}
