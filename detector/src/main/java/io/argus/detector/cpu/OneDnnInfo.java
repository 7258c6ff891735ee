package io.argus.detector.cpu;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.bytedeco.dnnl.dnnl_version_t;
import org.bytedeco.dnnl.global.dnnl;
import org.bytedeco.javacpp.Loader;

/** What oneDNN is and which instruction set it dispatches to on this CPU (it may use less than the CPU has). */
public final class OneDnnInfo {
    private OneDnnInfo() {}

    /** E.g. "3.11.0". */
    public static String version() {
        Loader.load(dnnl.class);
        dnnl_version_t v = dnnl.dnnl_version();
        return v.major() + "." + v.minor() + "." + v.patch();
    }

    /** The ISA oneDNN's kernels use here, e.g. "avx512_core_amx" (ONEDNN_MAX_CPU_ISA can lower it). */
    public static String isa() {
        Loader.load(dnnl.class);
        return isaName(dnnl.dnnl_get_effective_cpu_isa());
    }

    /** E.g. "oneDNN 3.11.0 uses avx512_core_bf16". */
    public static String describe() { return "oneDNN " + version() + " uses " + isa(); }

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
