package io.argus.detector.cpu;

import java.nio.file.Path;

/**
 * How a network runs on the CPU.
 *
 * @param precision the number type ({@link CpuPrecision})
 * @param tune      time every convolution implementation oneDNN offers for each layer at first use and keep the
 *                  fastest ({@link ConvolutionTuner}); false: oneDNN's first choice
 * @param tuningDir where the choices are kept across runs, a file per CPU model; null: in this process only
 */
public record CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir) {
    public static final CpuOptions DEFAULTS = new CpuOptions(CpuPrecision.FP32, true, null);

    public CpuOptions {
        if (precision == null) throw new IllegalArgumentException("precision is required");
    }

    public CpuOptions withPrecision(CpuPrecision p) { return new CpuOptions(p, tune, tuningDir); }
}
