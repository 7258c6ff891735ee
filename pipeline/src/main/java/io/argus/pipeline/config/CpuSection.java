package io.argus.pipeline.config;

import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import java.nio.file.Path;

/**
 * A model's {@code cpu:} section ({@code models[].cpu}), read whatever the backend so a typo is an error on any
 * machine: {@code precision} (fp32, or bf16 on a CPU with AVX512_BF16 or AMX), {@code tune} (time each convolution's
 * implementations at first use, default true) and {@code tuningCache} (where those choices are kept per CPU, default
 * ~/.cache/argus/cpu-tuning; {@code off} keeps them for the process only). Overrides as for any key:
 * {@code ARGUS_MODELS_0_CPU_PRECISION=bf16}.
 */
final class CpuSection {
    private CpuSection() {}

    static CpuOptions read(ConfigNode n) {
        String p = n.string("precision", "fp32");
        CpuPrecision precision;
        try {
            precision = CpuPrecision.parse(p);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(n.key("precision"), e.getMessage());
        }
        boolean tune = n.bool("tune", true);
        Path cache = tuningCache(n);
        n.finish();
        return new CpuOptions(precision, tune, cache);
    }

    private static Path tuningCache(ConfigNode n) {
        String s = n.string("tuningCache", null);
        if (s != null && s.strip().equalsIgnoreCase("off")) return null;
        String xdg = System.getenv().getOrDefault("XDG_CACHE_HOME", System.getProperty("user.home") + "/.cache");
        return n.path("tuningCache", Path.of(xdg, "argus", "cpu-tuning"), false);
    }
}
