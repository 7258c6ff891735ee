package io.argus.detector.cpu;

import java.nio.file.Path;

/**
 * How a network runs on the CPU.
 *
 * @param precision   the number type ({@link CpuPrecision})
 * @param tune        time every convolution implementation oneDNN offers for each layer at first use and keep the
 *                    fastest ({@link ConvolutionTuner}); false: oneDNN's first choice
 * @param tuningDir   where the choices are kept across runs, a file per CPU model; null: in this process only
 * @param calibration INT8: sample frames to measure activation ranges on ({@link Int8Calibration#readImages}: a folder
 *                    of images or a list file); required for int8, unused otherwise
 */
public record CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir, Path calibration) {
    public static final CpuOptions DEFAULTS = new CpuOptions(CpuPrecision.FP32, true, null, null);
    /** Calibration frames used at most (more cost start-up time and rarely move a range). */
    public static final int CALIBRATION_FRAMES = 64;

    public CpuOptions {
        if (precision == null) throw new IllegalArgumentException("precision is required");
        if (precision == CpuPrecision.INT8 && calibration == null) {
            throw new IllegalArgumentException("CPU precision int8 needs calibration frames (models[].cpu.calibration: "
                    + "a folder of sample images or a list file)");
        }
    }

    public CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir) {
        this(precision, tune, tuningDir, null);
    }

    /** These options in precision {@code p} (INT8 needs {@link #withCalibration} first or together). */
    public CpuOptions withPrecision(CpuPrecision p) { return new CpuOptions(p, tune, tuningDir, calibration); }

    public CpuOptions withCalibration(Path images) { return new CpuOptions(precision, tune, tuningDir, images); }
}
