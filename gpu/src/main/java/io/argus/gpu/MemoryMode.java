package io.argus.gpu;

import java.util.Locale;

/**
 * Where frames and results live. UNIFIED: {@code cudaMallocManaged} buffers that Java writes frames into and
 * kernels read, with no second host copy (as Darknet on Jetson). DEVICE: {@code cudaMalloc} plus pinned host
 * staging and asynchronous copies. AUTO: unified on integrated GPUs (CPU and GPU share memory), device on discrete.
 * Activations and weights are always plain device allocations.
 */
public enum MemoryMode {
    UNIFIED, DEVICE, AUTO;

    public static MemoryMode parse(String word) {
        try {
            return valueOf(word.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("memory: expected unified, device or auto, found '" + word + "'");
        }
    }

    public MemoryMode resolve(GpuDevice device) {
        if (this != AUTO) return this;
        return device.integrated() ? UNIFIED : DEVICE;
    }
}
