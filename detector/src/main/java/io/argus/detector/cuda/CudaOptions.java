package io.argus.detector.cuda;

import io.argus.gpu.MemoryMode;

/**
 * How a CUDA network is built. {@code fusion}: ALL fuses bias, activation and a following [shortcut] into the cuDNN
 * convolution; EPILOGUE fuses bias and activation only; NONE runs our own bias+activation kernel after a plain
 * convolution. {@code graphs}: capture the whole forward per batch size as a CUDA graph. {@code inPlace}: routes
 * concatenate by having their inputs write into place. {@code autotune}: how many cuDNN engine configurations are
 * timed per convolution shape.
 *
 * <p>A plain value the caller passes in ({@link io.argus.detector.Detector.Options#cuda()}): the pipeline builds it
 * from a model's {@code cuda:} section, the command line from the {@code -Dargus.cuda.*} properties. The engine
 * reads no system properties for it, so two models in one process can run on two devices in two memory modes.
 */
public record CudaOptions(int device, MemoryMode memory, Fusion fusion, boolean graphs, boolean inPlace,
                          int autotune) {
    public enum Fusion { ALL, EPILOGUE, NONE }

    public CudaOptions {
        if (device < 0) throw new IllegalArgumentException("device: expected an index >= 0, found " + device);
        if (memory == null || fusion == null) throw new IllegalArgumentException("memory and fusion are required");
        if (autotune < 1) throw new IllegalArgumentException("autotune must be at least 1, got " + autotune);
    }

    public static CudaOptions defaults() {
        return new CudaOptions(0, MemoryMode.AUTO, Fusion.ALL, true, true, 4);
    }

    public CudaOptions withDevice(int d) { return new CudaOptions(d, memory, fusion, graphs, inPlace, autotune); }

    public CudaOptions withMemory(MemoryMode m) { return new CudaOptions(device, m, fusion, graphs, inPlace, autotune); }

    public CudaOptions withFusion(Fusion f) { return new CudaOptions(device, memory, f, graphs, inPlace, autotune); }

    public CudaOptions withGraphs(boolean g) { return new CudaOptions(device, memory, fusion, g, inPlace, autotune); }

    public CudaOptions withInPlace(boolean p) { return new CudaOptions(device, memory, fusion, graphs, p, autotune); }

    public CudaOptions withAutotune(int a) { return new CudaOptions(device, memory, fusion, graphs, inPlace, a); }
}
