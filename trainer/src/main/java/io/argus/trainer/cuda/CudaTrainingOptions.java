package io.argus.trainer.cuda;

/**
 * Options of the CUDA training backend.
 *
 * @param device          CUDA device index
 * @param precision       storage of activations and gradients
 * @param strictFp32      FP32 only: IEEE FP32 convolutions (cuDNN's FMA math); false lets cuDNN use TF32 tensor cores,
 *                        as PyTorch does by default ("tf32")
 * @param autotune        time cuDNN's algorithms on the real buffers (cudnnFind*Ex) instead of taking its heuristic
 * @param workspaceLimit  the most cuDNN workspace an algorithm may use (bytes; default 2 GiB: IEEE FP32's fast NHWC
 *                        engines need 0.3-1.1 GiB at yolov4-tiny 416 batch 64, and were 4.9x slower under 256 MiB;
 *                        one workspace is shared by all layers and sized to the largest chosen need)
 * @param overwriteGradients a convolution that is its input's only consumer writes the input gradient (cuDNN beta 0)
 *                        instead of adding to the cleared buffer (beta 1). Off by default: added after the last GPU
 *                        run, so not measured on a GPU yet
 * @param graphEngines    also plan each convolution operation through cuDNN's graph API and run the faster of the two
 *                        (default on; off keeps to the legacy API)
 */
public record CudaTrainingOptions(int device, Precision precision, boolean strictFp32, boolean autotune,
                                  long workspaceLimit, boolean overwriteGradients, boolean graphEngines) {
    public CudaTrainingOptions {
        if (precision == null) throw new IllegalArgumentException("precision is required");
        if (device < 0) throw new IllegalArgumentException("device: expected an index >= 0, found " + device);
        if (workspaceLimit < 0) throw new IllegalArgumentException("workspaceLimit must be >= 0");
    }

    /**
     * The defaults: device 0, IEEE FP32 convolutions when FP32, autotuning, a 2 GiB workspace limit, graph engines
     * on. A plain value: the pipeline builds its options from {@code training.cuda}, the command line
     * from the {@code -Dargus.cuda.*} properties; this library reads no system properties.
     */
    public static CudaTrainingOptions defaults(Precision precision) {
        return new CudaTrainingOptions(0, precision, true, true, DEFAULT_WORKSPACE_LIMIT, false, true);
    }

    /** 2 GiB (see {@code workspaceLimit}). */
    public static final long DEFAULT_WORKSPACE_LIMIT = 2048L << 20;

    /**
     * "mixed" (or fp16), "fp32" (IEEE FP32 convolutions) or "tf32" (FP32 storage, TF32 convolutions); a "-legacy"
     * suffix keeps the convolutions to cuDNN's legacy API (no graph engines), to compare the two in one run.
     */
    public static CudaTrainingOptions mode(String word) {
        return defaults(Precision.MIXED).withMode(word);
    }

    /**
     * These options in another mode ({@link #mode}): "mixed" keeps {@code strictFp32} as it is (it only matters in
     * FP32), "fp32" and "tf32" set it; "-legacy" turns graph engines off.
     */
    public CudaTrainingOptions withMode(String word) {
        String w = word.strip().toLowerCase(java.util.Locale.ROOT);
        boolean legacy = w.endsWith("-legacy");
        if (legacy) w = w.substring(0, w.length() - "-legacy".length());
        CudaTrainingOptions o = w.equals("tf32") ? withPrecision(Precision.FP32).withStrictFp32(false)
                : w.equals("fp32") ? withPrecision(Precision.FP32).withStrictFp32(true)
                : withPrecision(Precision.parse(w));
        return legacy ? o.withGraphEngines(false) : o;
    }

    /** The mode's name: mixed, fp32 or tf32, with "-legacy" when graph engines are off. */
    public String modeName() {
        return (precision == Precision.MIXED ? "mixed" : strictFp32 ? "fp32" : "tf32") + (graphEngines ? "" : "-legacy");
    }

    public CudaTrainingOptions withDevice(int d) {
        return new CudaTrainingOptions(d, precision, strictFp32, autotune, workspaceLimit, overwriteGradients, graphEngines);
    }

    public CudaTrainingOptions withPrecision(Precision p) {
        return new CudaTrainingOptions(device, p, strictFp32, autotune, workspaceLimit, overwriteGradients, graphEngines);
    }

    public CudaTrainingOptions withWorkspaceLimit(long bytes) {
        return new CudaTrainingOptions(device, precision, strictFp32, autotune, bytes, overwriteGradients, graphEngines);
    }

    public CudaTrainingOptions withStrictFp32(boolean strict) {
        return new CudaTrainingOptions(device, precision, strict, autotune, workspaceLimit, overwriteGradients, graphEngines);
    }

    public CudaTrainingOptions withAutotune(boolean tune) {
        return new CudaTrainingOptions(device, precision, strictFp32, tune, workspaceLimit, overwriteGradients, graphEngines);
    }

    public CudaTrainingOptions withOverwriteGradients(boolean overwrite) {
        return new CudaTrainingOptions(device, precision, strictFp32, autotune, workspaceLimit, overwrite, graphEngines);
    }

    public CudaTrainingOptions withGraphEngines(boolean graphs) {
        return new CudaTrainingOptions(device, precision, strictFp32, autotune, workspaceLimit, overwriteGradients,
                graphs);
    }
}
