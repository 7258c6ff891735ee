package io.argus.pipeline.cli;

import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.CudaPrecision;
import io.argus.gpu.MemoryMode;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.cuda.Precision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The command line's CUDA settings: the {@code -Dargus.cuda.*} system properties of {@code argus bench},
 * {@code argus detect}, {@code argus train} and {@code argus bench train} (and of scripts/gpu/*.sh), mapped onto the
 * same option records the pipeline builds from argus.yaml's {@code cuda:} sections. The only place that reads them:
 * the engine and the trainer take the records as arguments.
 *
 * <ul>
 *   <li>inference: {@code argus.cuda.device}, {@code memory} (unified, device, auto), {@code fusion} (all, epilogue,
 *   none), {@code graphs}, {@code inplace}, {@code autotune} (engines timed per convolution shape), {@code direct}
 *   (timed, always, never: the first layer on our direct kernel where it is timed faster than cuDNN),
 *   {@code precision} (fp16, fp8, auto) with {@code calibration} (fp8's sample frames);</li>
 *   <li>training: {@code argus.cuda.device}, {@code argus.cuda.train.tf32} (FP32 runs on TF32 tensor cores),
 *   {@code .autotune}, {@code .workspace} (bytes), {@code .overwrite}, {@code .graph}.</li>
 * </ul>
 */
public final class CudaSystemProperties {
    private CudaSystemProperties() {}

    /**
     * The detector's options: the defaults overridden by argus.cuda.{device,memory,fusion,graphs,inplace,autotune,
     * direct,precision,calibration}.
     */
    public static CudaOptions inference() {
        CudaOptions d = CudaOptions.defaults();
        CudaPrecision precision = precision();
        return new CudaOptions(Integer.getInteger("argus.cuda.device", d.device()),
                MemoryMode.parse(System.getProperty("argus.cuda.memory", d.memory().name())),
                CudaOptions.Fusion.valueOf(System.getProperty("argus.cuda.fusion", d.fusion().name())
                        .strip().toUpperCase(Locale.ROOT)),
                Boolean.parseBoolean(System.getProperty("argus.cuda.graphs", String.valueOf(d.graphs()))),
                Boolean.parseBoolean(System.getProperty("argus.cuda.inplace", String.valueOf(d.inPlace()))),
                Integer.getInteger("argus.cuda.autotune", d.autotune()), d.planCache(), direct(d.direct()),
                precision, calibration(precision));
    }

    /** {@code argus.cuda.precision}: fp16 (default), fp8 or auto. */
    static CudaPrecision precision() {
        String v = System.getProperty("argus.cuda.precision");
        if (v == null) return CudaPrecision.FP16;
        try {
            return CudaPrecision.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-Dargus.cuda.precision: " + e.getMessage());
        }
    }

    /** {@code argus.cuda.calibration}: the sample frames {@code precision} calibrates on (required by fp8 and auto). */
    static Path calibration(CudaPrecision precision) {
        String v = System.getProperty("argus.cuda.calibration");
        if (v == null || v.isBlank()) {
            if (precision.quantizes()) {
                throw new IllegalArgumentException("-Dargus.cuda.precision=" + precision.label() + " needs "
                        + "-Dargus.cuda.calibration=<a folder of sample frames or a list file>");
            }
            return null;
        }
        Path p = Path.of(v.strip());
        if (!Files.exists(p)) {
            throw new IllegalArgumentException("-Dargus.cuda.calibration: no such folder or list file " + p);
        }
        return p;
    }

    /** {@code argus.cuda.direct}: timed, always or never (the first layer on our direct kernel). */
    static CudaOptions.DirectConvolution direct(CudaOptions.DirectConvolution def) {
        String v = System.getProperty("argus.cuda.direct");
        if (v == null) return def;
        for (CudaOptions.DirectConvolution c : CudaOptions.DirectConvolution.values()) {
            if (c.name().equalsIgnoreCase(v.strip())) return c;
        }
        throw new IllegalArgumentException("-Dargus.cuda.direct: expected timed, always or never, found \"" + v + "\"");
    }

    /**
     * The CUDA trainer's options in {@code precision} (argus train): FP32 is IEEE FP32 unless argus.cuda.train.tf32=true.
     */
    public static CudaTrainingOptions training(Precision precision) {
        return training(precision == Precision.MIXED ? "mixed"
                : Boolean.getBoolean("argus.cuda.train.tf32") ? "tf32" : "fp32");
    }

    /**
     * A mode word of `argus bench train --precision` (mixed, fp32, tf32): the defaults overridden by argus.cuda.device
     * and argus.cuda.train.{autotune,workspace,overwrite}.
     */
    public static CudaTrainingOptions training(String mode) {
        CudaTrainingOptions d = CudaTrainingOptions.mode(mode);
        return CudaTrainingOptions.of(Integer.getInteger("argus.cuda.device", d.device()), mode,
                Boolean.parseBoolean(System.getProperty("argus.cuda.train.autotune", String.valueOf(d.autotune()))),
                Long.getLong("argus.cuda.train.workspace", d.workspaceLimit()),
                Boolean.parseBoolean(System.getProperty("argus.cuda.train.overwrite",
                        String.valueOf(d.overwriteGradients()))), d.planCache());
    }

    /** argus.cuda.verbose: print each layer's cuDNN plans. */
    public static boolean verbose() {
        return Boolean.getBoolean("argus.cuda.verbose");
    }
}
