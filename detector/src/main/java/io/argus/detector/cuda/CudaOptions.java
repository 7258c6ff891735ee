package io.argus.detector.cuda;

/**
 * How a CUDA network is built. {@code fusion}: ALL fuses bias, activation and a following [shortcut] into the cuDNN
 * convolution; EPILOGUE fuses bias and activation only; NONE runs our own bias+activation kernel after a plain
 * convolution. {@code graphs}: capture the whole forward per batch size as a CUDA graph. {@code inPlace}: routes
 * concatenate by having their inputs write into place. {@code autotune}: how many cuDNN engine configurations are
 * timed per convolution shape.
 */
public record CudaOptions(int device, MemoryMode memory, Fusion fusion, boolean graphs, boolean inPlace,
                          int autotune) {
    public enum Fusion { ALL, EPILOGUE, NONE }

    public CudaOptions {
        if (autotune < 1) throw new IllegalArgumentException("autotune must be at least 1, got " + autotune);
    }

    public static CudaOptions defaults() {
        return new CudaOptions(0, MemoryMode.AUTO, Fusion.ALL, true, true, 4);
    }

    /** Defaults overridden by system properties argus.cuda.{device,memory,fusion,graphs,inplace,autotune}. */
    public static CudaOptions fromSystemProperties() {
        CudaOptions d = defaults();
        return new CudaOptions(Integer.getInteger("argus.cuda.device", d.device),
                MemoryMode.parse(System.getProperty("argus.cuda.memory", d.memory.name())),
                Fusion.valueOf(System.getProperty("argus.cuda.fusion", d.fusion.name()).toUpperCase(java.util.Locale.ROOT)),
                Boolean.parseBoolean(System.getProperty("argus.cuda.graphs", String.valueOf(d.graphs))),
                Boolean.parseBoolean(System.getProperty("argus.cuda.inplace", String.valueOf(d.inPlace))),
                Integer.getInteger("argus.cuda.autotune", d.autotune));
    }

    public CudaOptions withDevice(int d) { return new CudaOptions(d, memory, fusion, graphs, inPlace, autotune); }

    public CudaOptions withMemory(MemoryMode m) { return new CudaOptions(device, m, fusion, graphs, inPlace, autotune); }

    public CudaOptions withFusion(Fusion f) { return new CudaOptions(device, memory, f, graphs, inPlace, autotune); }

    public CudaOptions withGraphs(boolean g) { return new CudaOptions(device, memory, fusion, g, inPlace, autotune); }

    public CudaOptions withInPlace(boolean p) { return new CudaOptions(device, memory, fusion, graphs, p, autotune); }
}
