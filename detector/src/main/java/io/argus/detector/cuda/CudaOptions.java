package io.argus.detector.cuda;

import io.argus.gpu.MemoryMode;
import io.argus.gpu.cudnn.PlanCache;
import io.argus.gpu.cudnn.PlanSettings;
import java.nio.file.Path;

/**
 * How a CUDA network is built. {@code fusion}: ALL fuses bias, activation and a following [shortcut] into the cuDNN
 * convolution; EPILOGUE fuses bias and activation only; NONE runs our own bias+activation kernel after a plain
 * convolution. {@code graphs}: capture the whole forward per batch bucket as a CUDA graph. {@code inPlace}: routes
 * concatenate by having their inputs write into place. {@code autotune}: how many cuDNN engine configurations are
 * timed per convolution shape. {@code planCache}: the directory where chosen cuDNN plans are kept between runs
 * (keyed by GPU, driver, cuDNN and shape), so a restart plans without timing; null keeps none. {@code direct}: how a
 * first layer over the image's 3 channels runs: TIMED on our direct kernel where it beats cuDNN's plan at the largest
 * batch, ALWAYS on it wherever it applies, NEVER on cuDNN. {@code precision}: the convolutions' number type
 * ({@link CudaPrecision}); FP8 and AUTO measure the activation ranges on {@code calibration}'s sample frames (a
 * folder of images or a list file, the first {@link io.argus.detector.cpu.CpuOptions#CALIBRATION_FRAMES}), which they
 * require.
 *
 * <p>A plain value the caller passes in ({@link io.argus.detector.backends.Detector.Options#cuda()}): the pipeline builds it
 * from a model's {@code cuda:} section, the command line from the {@code -Dargus.cuda.*} properties. The engine
 * reads no system properties for it, so two models in one process can run on two devices in two memory modes.
 */
public record CudaOptions(int device, MemoryMode memory, Fusion fusion, boolean graphs, boolean inPlace,
                          int autotune, Path planCache, DirectConvolution direct, CudaPrecision precision,
                          Path calibration) {
    public enum Fusion { ALL, EPILOGUE, NONE }

    public enum DirectConvolution { TIMED, ALWAYS, NEVER }

    public CudaOptions {
        if (device < 0) throw new IllegalArgumentException("device: expected an index >= 0, found " + device);
        if (memory == null || fusion == null || direct == null || precision == null) {
            throw new IllegalArgumentException("memory, fusion, direct and precision are required");
        }
        if (precision.quantizes() && calibration == null) {
            throw new IllegalArgumentException("CUDA precision " + precision.label() + " needs calibration frames "
                    + "(models[].cuda.calibration: a folder of images or a list file)");
        }
        if (autotune < 1) throw new IllegalArgumentException("autotune must be at least 1, got " + autotune);
    }

    /** FP16. */
    public CudaOptions(int device, MemoryMode memory, Fusion fusion, boolean graphs, boolean inPlace, int autotune,
                       Path planCache, DirectConvolution direct) {
        this(device, memory, fusion, graphs, inPlace, autotune, planCache, direct, CudaPrecision.FP16, null);
    }

    /** The direct convolution where it is timed faster; FP16. */
    public CudaOptions(int device, MemoryMode memory, Fusion fusion, boolean graphs, boolean inPlace, int autotune,
                       Path planCache) {
        this(device, memory, fusion, graphs, inPlace, autotune, planCache, DirectConvolution.TIMED);
    }

    /** Device 0, memory mode by device, everything fused, graphs, in-place routes, 4 engines timed, plans kept in
     * ~/.cache/argus/plans. */
    public static CudaOptions defaults() {
        return new CudaOptions(0, MemoryMode.AUTO, Fusion.ALL, true, true, 4, PlanCache.defaultDirectory());
    }

    /** How the convolution planner chooses: {@code autotune} candidates timed, no workspace limit, the plan cache. */
    public PlanSettings planSettings() {
        return new PlanSettings(autotune, Long.MAX_VALUE, planCache, false);
    }

    public CudaOptions withDevice(int d) {
        return new CudaOptions(d, memory, fusion, graphs, inPlace, autotune, planCache, direct, precision, calibration);
    }

    public CudaOptions withMemory(MemoryMode m) {
        return new CudaOptions(device, m, fusion, graphs, inPlace, autotune, planCache, direct, precision, calibration);
    }

    public CudaOptions withFusion(Fusion f) {
        return new CudaOptions(device, memory, f, graphs, inPlace, autotune, planCache, direct, precision, calibration);
    }

    public CudaOptions withGraphs(boolean g) {
        return new CudaOptions(device, memory, fusion, g, inPlace, autotune, planCache, direct, precision, calibration);
    }

    public CudaOptions withInPlace(boolean p) {
        return new CudaOptions(device, memory, fusion, graphs, p, autotune, planCache, direct, precision, calibration);
    }

    public CudaOptions withAutotune(int a) {
        return new CudaOptions(device, memory, fusion, graphs, inPlace, a, planCache, direct, precision, calibration);
    }

    public CudaOptions withDirect(DirectConvolution d) {
        return new CudaOptions(device, memory, fusion, graphs, inPlace, autotune, planCache, d, precision, calibration);
    }

    /** Convolutions in {@code p}, FP8's activation ranges measured on {@code frames} (null for FP16). */
    public CudaOptions withPrecision(CudaPrecision p, Path frames) {
        return new CudaOptions(device, memory, fusion, graphs, inPlace, autotune, planCache, direct, p, frames);
    }

    /** Plans kept in {@code dir} (null: no disk cache). */
    public CudaOptions withPlanCache(Path dir) {
        return new CudaOptions(device, memory, fusion, graphs, inPlace, autotune, dir, direct, precision, calibration);
    }
}
