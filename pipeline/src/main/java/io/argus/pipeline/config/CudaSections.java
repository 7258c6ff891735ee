package io.argus.pipeline.config;

import io.argus.detector.cuda.CudaOptions;
import io.argus.gpu.MemoryMode;
import io.argus.trainer.cuda.CudaTrainingOptions;
import java.nio.file.Path;

/**
 * The {@code cuda:} sections of argus.yaml: a model's ({@code models[].cuda}) and the fine-tune's
 * ({@code training.cuda}), read into the engine's plain option records. Each model can name its own GPU and memory
 * mode, so two models can run on two devices; every key has an environment override like any other
 * ({@code ARGUS_MODELS_0_CUDA_DEVICE}, {@code ARGUS_TRAINING_CUDA_PRECISION}). The sections are read whatever the
 * backend, so a typo is an error even on a machine without a GPU.
 */
public final class CudaSections {
    /** Highest device index accepted here; a missing device fails when the model opens, naming it. */
    static final int MAX_DEVICE = 63;

    private CudaSections() {}

    /**
     * {@code models[].cuda}: {@code device}, {@code memory} (auto, device, unified), {@code graphs},
     * {@code autotune}, {@code planCache} (the directory where chosen cuDNN plans are kept between runs, default
     * ~/.cache/argus/plans; {@code off} keeps none). No workspace key: the inference backend sizes cuDNN's workspace to the largest plan it
     * chose and has no limit to configure. Fusion and in-place routes keep their defaults (benchmark switches of
     * {@code argus bench}).
     */
    public static CudaOptions inference(ConfigNode n) {
        CudaOptions d = CudaOptions.defaults();
        int device = n.integer("device", d.device(), 0, MAX_DEVICE);
        String memory = n.oneOf("memory", d.memory().name().toLowerCase(java.util.Locale.ROOT), "auto", "device",
                "unified");
        boolean graphs = n.bool("graphs", d.graphs());
        int autotune = n.integer("autotune", d.autotune(), 1, 64);
        Path planCache = planCache(n, d.planCache());
        n.finish();
        return new CudaOptions(device, MemoryMode.parse(memory), d.fusion(), graphs, d.inPlace(), autotune, planCache);
    }

    /** {@code planCache}: a directory (relative to the config file), or {@code off} for none. */
    private static Path planCache(ConfigNode n, Path def) {
        String s = n.string("planCache", null);
        if (s != null && s.strip().equalsIgnoreCase("off")) return null;
        return n.path("planCache", def, false);
    }

    /**
     * {@code training.cuda}: {@code device}, {@code precision} (mixed, fp32, tf32), {@code workspaceMiB} (the most
     * cuDNN workspace one convolution algorithm may use), {@code autotune} (time cuDNN's algorithms instead of taking
     * its heuristic), {@code planCache} (as for a model).
     */
    public static CudaTrainingOptions training(ConfigNode n) {
        CudaTrainingOptions d = CudaTrainingOptions.mode("mixed");
        int device = n.integer("device", d.device(), 0, MAX_DEVICE);
        String precision = n.oneOf("precision", "mixed", "mixed", "fp32", "tf32");
        long workspaceMiB = n.longValue("workspaceMiB", d.workspaceLimit() >> 20, 0, 1L << 20);
        boolean autotune = n.bool("autotune", d.autotune());
        Path planCache = planCache(n, d.planCache());
        n.finish();
        return CudaTrainingOptions.of(device, precision, autotune, workspaceMiB << 20, d.overwriteGradients(),
                planCache);
    }
}
