package io.argus.pipeline.config;

import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.CudaPrecision;
import io.argus.gpu.MemoryMode;
import io.argus.trainer.cuda.CudaTrainingOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cuda:} sections of argus.yaml: a model's ({@code models[].cuda}) and the fine-tune's
 * ({@code training.cuda}), read into the engine's plain option records. Each model can name its own GPU (or GPUs)
 * and memory mode, so two models can run on two devices, or one model on several; every key has an environment override like any other
 * ({@code ARGUS_MODELS_0_CUDA_DEVICE}, {@code ARGUS_TRAINING_CUDA_PRECISION}). The sections are read whatever the
 * backend, so a typo is an error even on a machine without a GPU.
 */
public final class CudaSections {
    /** Highest device index accepted here; a missing device fails when the model opens, naming it. */
    static final int MAX_DEVICE = 63;

    private CudaSections() {}

    /** A model's {@code cuda:} section: how its detectors are built, and on which GPUs. */
    public record ModelCuda(CudaOptions options, CudaDevices devices) {}

    /**
     * {@code models[].cuda}: {@code device} (one GPU) or {@code devices} (several: a list of indexes, or {@code all}),
     * {@code memory} (auto, device, unified), {@code graphs}, {@code autotune}, {@code planCache} (the directory where
     * chosen cuDNN plans are kept between runs, default {@code <cacheDir>/plans}; {@code off} keeps none),
     * {@code precision} (fp16; fp8 or auto on GPUs with FP8 tensor cores, see {@link CudaPrecision}) and
     * {@code calibration} (fp8 and auto, required there: sample frames as {@code cpu.calibration} takes). No workspace
     * key: the inference backend sizes cuDNN's workspace to the largest plan it chose and has no limit to configure.
     * Fusion and in-place routes keep their defaults (benchmark switches of {@code argus bench}). The options' device
     * is the first of the devices.
     */
    public static ModelCuda model(ConfigNode n, Path cacheDir) {
        CudaOptions d = CudaOptions.defaults();
        CudaDevices devices = devices(n, d.device());
        String memory = n.oneOf("memory", d.memory().name().toLowerCase(java.util.Locale.ROOT), "auto", "device",
                "unified");
        boolean graphs = n.bool("graphs", d.graphs());
        int autotune = n.integer("autotune", d.autotune(), 1, 64);
        Path planCache = planCache(n, plansIn(cacheDir));
        CudaPrecision precision = CudaPrecision.parse(n.oneOf("precision", "fp16", "fp16", "fp8", "auto"));
        Path calibration = n.path("calibration", null, false);
        if (calibration != null && !Files.exists(calibration)) {
            throw new ConfigException(n.key("calibration"), "no such folder or list file " + calibration);
        }
        if (precision.quantizes() && calibration == null) {
            throw new ConfigException(n.key("calibration"), "precision " + precision.label() + " needs sample frames "
                    + "to measure activation ranges on: a folder of images or a list file (e.g. a dataset's train.txt)");
        }
        n.finish();
        CudaOptions options = new CudaOptions(devices.first(), MemoryMode.parse(memory), d.fusion(), graphs,
                d.inPlace(), autotune, planCache, d.direct(), precision, calibration);
        return new ModelCuda(options, devices);
    }

    /** {@code device: N} or {@code devices: [N, ...] | all}, not both; neither: {@code def} alone. */
    private static CudaDevices devices(ConfigNode n, int def) {
        int device = n.integer("device", -1, 0, MAX_DEVICE);
        List<String> items = n.listOrValue("devices");
        if (items == null) return CudaDevices.of(device >= 0 ? device : def);
        String found = items.size() == 1 ? "\"" + items.get(0) + "\"" : "[" + String.join(", ", items) + "]";
        if (device >= 0) {
            throw new ConfigException(n.key("devices"), "give device (one GPU) or devices (several), not both; found "
                    + "device " + device + " and devices " + found);
        }
        if (items.size() == 1 && items.get(0).equalsIgnoreCase("all")) return CudaDevices.ALL;
        if (items.isEmpty()) {
            throw new ConfigException(n.key("devices"), "expected device indexes in 0.." + MAX_DEVICE + " or all, found "
                    + "an empty list");
        }
        List<Integer> listed = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i);
            int index;
            try {
                index = Integer.parseInt(item);
            } catch (NumberFormatException e) {
                index = -1;
            }
            if (index < 0 || index > MAX_DEVICE) {
                throw new ConfigException(n.key("devices") + "[" + i + "]", "expected a device index in 0.." + MAX_DEVICE
                        + (items.size() == 1 ? " or all" : "") + ", found \"" + item + "\"");
            }
            if (listed.contains(index)) {
                throw new ConfigException(n.key("devices"), "device " + index + " listed twice in " + found);
            }
            listed.add(index);
        }
        return new CudaDevices(listed);
    }

    /** The default plan cache: under cacheDir, as every cache Argus keeps. */
    static Path plansIn(Path cacheDir) { return cacheDir.resolve("plans"); }

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
    public static CudaTrainingOptions training(ConfigNode n, Path cacheDir) {
        CudaTrainingOptions d = CudaTrainingOptions.mode("mixed");
        int device = n.integer("device", d.device(), 0, MAX_DEVICE);
        String precision = n.oneOf("precision", "mixed", "mixed", "fp32", "tf32");
        long workspaceMiB = n.longValue("workspaceMiB", d.workspaceLimit() >> 20, 0, 1L << 20);
        boolean autotune = n.bool("autotune", d.autotune());
        Path planCache = planCache(n, plansIn(cacheDir));
        n.finish();
        return CudaTrainingOptions.of(device, precision, autotune, workspaceMiB << 20, d.overwriteGradients(),
                planCache);
    }
}
