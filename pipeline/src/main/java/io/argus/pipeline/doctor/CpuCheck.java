package io.argus.pipeline.doctor;

import io.argus.detector.cpu.CpuInfo;
import io.argus.detector.cpu.OneDnnInfo;
import java.util.List;

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

    static String oneDnn() {
        try {
            return OneDnnInfo.describe();
        } catch (Throwable e) {
            return "oneDNN cannot be loaded (" + Doctor.describe(e) + ")";
        }
    }
}
