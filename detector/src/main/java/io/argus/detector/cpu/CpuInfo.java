package io.argus.detector.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The first processor of /proc/cpuinfo: model name, family/model/stepping (which tell CPU generations apart where the
 * name does not, e.g. "AMD EPYC" in a VM) and the ISA flags.
 *
 * @param processors number of "processor" entries (logical CPUs of the host, not of this process' cgroup)
 */
public record CpuInfo(String modelName, String family, String model, String stepping, int processors, Set<String> flags) {
    /** The ISA extensions oneDNN's fast kernels use, in the order of their generations. */
    public static final List<String> MATTERS = List.of("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "avx512_fp16",
            "amx_tile", "amx_bf16", "amx_int8");

    public static CpuInfo read() throws IOException {
        return parse(Files.readString(Path.of("/proc/cpuinfo")));
    }

    public static CpuInfo parse(String cpuinfo) {
        String name = null, family = null, model = null, stepping = null;
        Set<String> flags = new TreeSet<>();
        int processors = 0;
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String key = line.substring(0, colon).strip(), value = line.substring(colon + 1).strip();
            switch (key) {
                case "processor" -> processors++;
                case "model name" -> name = name == null ? value : name;
                case "cpu family" -> family = family == null ? value : family;
                case "model" -> model = model == null ? value : model;
                case "stepping" -> stepping = stepping == null ? value : stepping;
                case "flags" -> {
                    if (flags.isEmpty()) flags.addAll(List.of(value.split("\\s+")));
                }
                default -> { }
            }
        }
        return new CpuInfo(name, family, model, stepping, processors, flags);
    }

    /** The flags of {@link #MATTERS} this CPU has. */
    public List<String> relevantFlags() {
        return MATTERS.stream().filter(flags::contains).toList();
    }

    /** This machine's CPU, or an "unknown" one where /proc/cpuinfo cannot be read (not Linux). */
    public static CpuInfo current() {
        try {
            return read();
        } catch (IOException | RuntimeException e) {
            return new CpuInfo("unknown CPU", "?", "?", "?", Runtime.getRuntime().availableProcessors(), Set.of());
        }
    }

    /** BF16 arithmetic in hardware: AVX512_BF16 (Zen 4, Cooper Lake and later) or AMX-BF16 (Sapphire Rapids and later). */
    public boolean hasBf16() { return flags.contains("avx512_bf16") || flags.contains("amx_bf16"); }

    /** 8-bit dot products in hardware: AVX512-VNNI (Cascade Lake, Zen 4), AVX-VNNI (Alder Lake) or AMX-INT8. */
    public boolean hasInt8Dot() {
        return flags.contains("avx512_vnni") || flags.contains("avx_vnni") || flags.contains("amx_int8");
    }

    /** E.g. "AMD EPYC 9R14 96-Core Processor (family 25 model 17)". */
    public String describe() { return modelName + " (family " + family + " model " + model + ")"; }
}
