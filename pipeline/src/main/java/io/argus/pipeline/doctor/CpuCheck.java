package io.argus.pipeline.doctor;

import io.argus.detector.cpu.CpuInfo;
import io.argus.detector.cpu.OneDnnInfo;
import java.util.ArrayList;
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
        String oneDnnIsa = oneDnnIsa();
        String found = model + ", " + coreCount + "; " + (isa.isEmpty() ? "no AVX2" : String.join(" ", isa))
                + "; " + oneDnn();
        List<Finding> findings = new ArrayList<>();
        if (!cpu.flags().contains("avx2")) {
            findings.add(Finding.warn(name(), found, "without AVX2 oneDNN falls back to SSE4.1: CPU inference is "
                    + "several times slower; use a CPU with AVX2 (or, in a VM, pass the host CPU model through)"));
        } else if (cores < 2) {
            findings.add(Finding.warn(name(), found, "one core runs decoding, inference and HTTP together: "
                    + "expect low frame rates; give Argus 2 or more cores"));
        } else {
            findings.add(Finding.ok(name(), found));
        }
        Finding precision = PrecisionAdvice.of(cpu, oneDnnIsa);
        if (precision != null) findings.add(precision);
        return findings;
    }

    /** The ISA oneDNN dispatches to, or null when it cannot be loaded (said by {@link #oneDnn}). */
    static String oneDnnIsa() {
        try {
            return OneDnnInfo.isa();
        } catch (Throwable e) {
            return null;
        }
    }

    static String oneDnn() {
        try {
            return OneDnnInfo.describe();
        } catch (Throwable e) {
            return "oneDNN cannot be loaded (" + Doctor.describe(e) + ")";
        }
    }
}
