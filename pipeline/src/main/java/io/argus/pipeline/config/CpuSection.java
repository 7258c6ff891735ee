package io.argus.pipeline.config;

import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cpu.WinogradPolicy;
import java.nio.file.Path;

/**
 * A model's {@code cpu:} section ({@code models[].cpu}), read whatever the backend so a typo is an error on any
 * machine: {@code precision} (fp32; bf16 on a CPU with AVX512_BF16 or AMX; int8 on one with VNNI or AMX-INT8),
 * {@code calibration} (int8 only, required there: a folder of sample frames or a list file, the first 64 of which set
 * the activation ranges at start), {@code tune} (time each convolution's implementations at first use, default true)
 * {@code tuningCache} (where those choices are kept per CPU, default {@code <cacheDir>/cpu-tuning}; {@code off} keeps
 * them for the process only) and {@code winograd} (our own Winograd convolution for FP32 3x3 stride-1 layers: auto, a
 * candidate the tuner times, the default; off; f2x2 or f4x4 forced on every such layer, for tests and measurements).
 * Overrides as for any key: {@code ARGUS_MODELS_0_CPU_PRECISION=bf16}.
 */
final class CpuSection {
    private CpuSection() {}

    static CpuOptions read(ConfigNode n, Path cacheDir) {
        String p = n.string("precision", "fp32");
        CpuPrecision precision;
        try {
            precision = CpuPrecision.parse(p);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(n.key("precision"), e.getMessage());
        }
        Path calibration = n.path("calibration", null, false);
        if (calibration != null && !java.nio.file.Files.exists(calibration)) {
            throw new ConfigException(n.key("calibration"), "no such folder or list file " + calibration);
        }
        if (precision == CpuPrecision.INT8 && calibration == null) {
            throw new ConfigException(n.key("calibration"), "precision int8 needs sample frames: a folder of images "
                    + "or a list file (e.g. a dataset's train.txt)");
        }
        boolean tune = n.bool("tune", true);
        Path cache = tuningCache(n, cacheDir);
        WinogradPolicy winograd;
        try {
            String w = n.string("winograd", "auto");
            // YAML 1.1 (the config's parser) reads a bare off as false
            winograd = WinogradPolicy.parse(w.equals("false") ? "off" : w);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(n.key("winograd"), e.getMessage());
        }
        if (winograd.forced() && precision != CpuPrecision.FP32) {
            throw new ConfigException(n.key("winograd"), winograd.label() + " is FP32 only; precision is " + precision
                    + " (use auto or off)");
        }
        n.finish();
        return new CpuOptions(precision, tune, cache, calibration, winograd);
    }

    /** Under cacheDir unless set: ARGUS_CACHE_DIR (or cacheDir) moves every cache Argus keeps. */
    private static Path tuningCache(ConfigNode n, Path cacheDir) {
        String s = n.string("tuningCache", null);
        if (s != null && s.strip().equalsIgnoreCase("off")) return null;
        return n.path("tuningCache", cacheDir.resolve("cpu-tuning"), false);
    }
}
