package io.argus.detector.cpu;

import java.nio.file.Path;

/**
 * How a network runs on the CPU.
 *
 * @param precision   the number type ({@link CpuPrecision})
 * @param tune        time every convolution implementation oneDNN offers for each layer (and ours, {@code winograd})
 *                    at first use and keep the fastest ({@link ConvolutionTuner}); false: oneDNN's first choice
 * @param tuningDir   where the choices are kept across runs, a file per CPU model; null: in this process only
 * @param calibration INT8: sample frames to measure activation ranges on ({@link Int8Calibration#readImages}: a folder
 *                    of images or a list file); required for int8, unused otherwise
 * @param winograd    our own Winograd convolution for FP32 3x3 stride-1 layers ({@link WinogradPolicy}): a tuner
 *                    candidate (auto), never (off), or forced on every such layer (f2x2, f4x4)
 */
public record CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir, Path calibration, WinogradPolicy winograd) {
    public static final CpuOptions DEFAULTS = new CpuOptions(CpuPrecision.FP32, true, null, null);
    /** Calibration frames used at most (more cost start-up time and rarely move a range). */
    public static final int CALIBRATION_FRAMES = 64;

    public CpuOptions {
        if (precision == null) throw new IllegalArgumentException("precision is required");
        if (winograd == null) throw new IllegalArgumentException("winograd is required (auto, off, f2x2 or f4x4)");
        if (precision == CpuPrecision.INT8 && calibration == null) {
            throw new IllegalArgumentException("CPU precision int8 needs calibration frames (models[].cpu.calibration: "
                    + "a folder of sample images or a list file)");
        }
        if (winograd.forced() && precision != CpuPrecision.FP32) {
            throw new IllegalArgumentException("CPU winograd " + winograd.label() + " is FP32 only; precision is "
                    + precision + " (use winograd: auto or off)");
        }
    }

    public CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir, Path calibration) {
        this(precision, tune, tuningDir, calibration, WinogradPolicy.AUTO);
    }

    public CpuOptions(CpuPrecision precision, boolean tune, Path tuningDir) {
        this(precision, tune, tuningDir, null);
    }

    /** These options in precision {@code p} (INT8 needs {@link #withCalibration} first or together). */
    public CpuOptions withPrecision(CpuPrecision p) { return new CpuOptions(p, tune, tuningDir, calibration, winograd); }

    public CpuOptions withCalibration(Path images) { return new CpuOptions(precision, tune, tuningDir, images, winograd); }

    public CpuOptions withWinograd(WinogradPolicy w) { return new CpuOptions(precision, tune, tuningDir, calibration, w); }
}
