package io.argus.pipeline.doctor;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import org.bytedeco.dnnl.dnnl_version_t;
import org.bytedeco.dnnl.global.dnnl;
import org.bytedeco.javacpp.Loader;

/**
 * The CPU: model (name, family/model/stepping), cores, the ISA extensions that decide inference speed, and the ISA
 * oneDNN actually dispatches to (it may use less than the CPU has, e.g. in a VM that hides AVX-512 state).
 */
final class CpuCheck implements Check {
    @Override
    public String name() { return "CPU"; }

    @Override
    public List<Finding> run() throws Exception {
        CpuInfo cpu = CpuInfo.read();
        int cores = Runtime.getRuntime().availableProcessors();
        String model = (cpu.modelName() != null ? cpu.modelName() : "unknown model")
                + " (family " + cpu.family() + ", model " + cpu.model() + ", stepping " + cpu.stepping() + ")";
        String coreCount = cores + (cores == 1 ? " core" : " cores") + " for Argus"
                + (cpu.processors() > cores ? " (" + cpu.processors() + " on the host)" : "");
        List<String> isa = cpu.relevantFlags();
        String found = model + ", " + coreCount + "; " + (isa.isEmpty() ? "no AVX2" : String.join(" ", isa))
                + "; " + oneDnn();
        if (!cpu.flags().contains("avx2")) {
            return List.of(Finding.warn(name(), found, "without AVX2 oneDNN falls back to SSE4.1: CPU inference is "
                    + "several times slower; use a CPU with AVX2 (or, in a VM, pass the host CPU model through)"));
        }
        if (cores < 2) {
            return List.of(Finding.warn(name(), found, "one core runs decoding, inference and HTTP together: "
                    + "expect low frame rates; give Argus 2 or more cores"));
        }
        return List.of(Finding.ok(name(), found));
    }

    /** oneDNN's version and effective ISA, e.g. "oneDNN 3.11.0 uses avx512_core_bf16". */
    static String oneDnn() {
        try {
            Loader.load(dnnl.class);
            dnnl_version_t v = dnnl.dnnl_version();
            return "oneDNN " + v.major() + "." + v.minor() + "." + v.patch() + " uses " + isaName(dnnl.dnnl_get_effective_cpu_isa());
        } catch (Throwable e) {
            return "oneDNN cannot be loaded (" + Doctor.describe(e) + ")";
        }
    }

    /** The name of a {@code dnnl_cpu_isa_*} value (the constants are read from the presets, not copied). */
    static String isaName(int value) {
        String best = null;
        for (Field f : dnnl.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class || !f.getName().startsWith("dnnl_cpu_isa_")) continue;
            try {
                if (f.getInt(null) == value) {
                    String n = f.getName().substring("dnnl_cpu_isa_".length());
                    if (best == null || n.length() < best.length()) best = n;
                }
            } catch (IllegalAccessException e) {
                // not a constant we can read
            }
        }
        return best != null ? best : "ISA 0x" + Integer.toHexString(value);
    }
}
