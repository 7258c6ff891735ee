package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.cuda.CudaOptions;
import io.argus.gpu.MemoryMode;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.cuda.Precision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The -Dargus.cuda.* properties are read in one place, the command line's {@link CudaSystemProperties}: they map
 * onto the same records as before (so scripts/gpu keep working), and the engine's and the trainer's main sources read
 * none of them (a guard: the settings must come in as arguments, or YAML could not give two models two GPUs).
 */
@Budget(seconds = 5)
class CudaSystemPropertiesTest {
    /** A system property read whose name starts with argus.cuda, in any of Java's accessors. */
    static final Pattern READ = Pattern.compile(
            "(System\\.getProperty|Integer\\.getInteger|Long\\.getLong|Boolean\\.getBoolean)\\(\\s*\"argus\\.cuda");
    /** Diagnostics only, like a log level (with the ARGUS_CUDA_VERBOSE environment variable): not a setting. */
    static final String VERBOSE = "\"argus.cuda.verbose\"";

    @Test
    void libraryCodeReadsNoCudaSystemProperties() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("detector", "trainer")) {
            Path src = TestMedia.home().resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        String line = lines.get(i);
                        if (READ.matcher(line).find() && !line.contains(VERBOSE)) {
                            found.add(src.relativize(f) + ":" + (i + 1) + ": " + line.strip());
                        }
                    }
                }
            }
        }
        assertTrue(found.isEmpty(), "CUDA settings must be passed in (CudaOptions, CudaTrainingOptions), found:\n"
                + String.join("\n", found));
    }

    @Test
    void withoutPropertiesTheDefaults() {
        withProperties(() -> {
            assertEquals(CudaOptions.defaults(), CudaSystemProperties.inference());
            assertEquals(CudaTrainingOptions.defaults(Precision.MIXED), CudaSystemProperties.training(Precision.MIXED));
            assertEquals(CudaTrainingOptions.mode("tf32"), CudaSystemProperties.training("tf32"));
        });
    }

    @Test
    void propertiesMapOntoTheRecords() {
        withProperties(() -> {
            System.setProperty("argus.cuda.device", "1");
            System.setProperty("argus.cuda.memory", "unified");
            System.setProperty("argus.cuda.fusion", "epilogue");
            System.setProperty("argus.cuda.graphs", "false");
            System.setProperty("argus.cuda.inplace", "false");
            System.setProperty("argus.cuda.autotune", "2");
            System.setProperty("argus.cuda.direct", "Never");
            assertEquals(new CudaOptions(1, MemoryMode.UNIFIED, CudaOptions.Fusion.EPILOGUE, false, false, 2,
                            io.argus.gpu.cudnn.PlanCache.defaultDirectory(), CudaOptions.DirectConvolution.NEVER),
                    CudaSystemProperties.inference());
            System.setProperty("argus.cuda.direct", "sometimes");
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    CudaSystemProperties::inference);
            assertEquals("-Dargus.cuda.direct: expected timed, always or never, found \"sometimes\"", bad.getMessage());
            System.clearProperty("argus.cuda.direct");

            System.setProperty("argus.cuda.precision", "fp8");
            IllegalArgumentException uncalibrated = assertThrows(IllegalArgumentException.class,
                    CudaSystemProperties::inference);
            assertEquals("-Dargus.cuda.precision=fp8 needs -Dargus.cuda.calibration=<a folder of sample frames or a "
                    + "list file>", uncalibrated.getMessage());
            System.setProperty("argus.cuda.calibration", "no/such/frames");
            assertEquals("-Dargus.cuda.calibration: no such folder or list file no/such/frames",
                    assertThrows(IllegalArgumentException.class, CudaSystemProperties::inference).getMessage());
            Path frames = Path.of(System.getProperty("java.io.tmpdir"));
            System.setProperty("argus.cuda.calibration", frames.toString());
            CudaOptions fp8 = CudaSystemProperties.inference();
            assertEquals(io.argus.detector.cuda.CudaPrecision.FP8, fp8.precision());
            assertEquals(frames, fp8.calibration());
            System.setProperty("argus.cuda.precision", "fp4");
            assertEquals("-Dargus.cuda.precision: CUDA precision: expected fp16, fp8 or auto, found \"fp4\"",
                    assertThrows(IllegalArgumentException.class, CudaSystemProperties::inference).getMessage());
            System.clearProperty("argus.cuda.precision");
            System.clearProperty("argus.cuda.calibration");

            System.setProperty("argus.cuda.train.tf32", "true");
            System.setProperty("argus.cuda.train.autotune", "false");
            System.setProperty("argus.cuda.train.workspace", "4294967296");
            System.setProperty("argus.cuda.train.overwrite", "true");
            CudaTrainingOptions fp32 = CudaSystemProperties.training(Precision.FP32);
            assertEquals(new CudaTrainingOptions(1, Precision.FP32, false, false, 4L << 30,
                    true, io.argus.gpu.cudnn.PlanCache.defaultDirectory()), fp32);
            assertEquals("tf32", fp32.modeName(), "argus train --precision fp32 with -Dargus.cuda.train.tf32");
            assertEquals("fp32", CudaSystemProperties.training("fp32").modeName(), "bench's fp32 is IEEE FP32");
            assertEquals(1, CudaSystemProperties.training("mixed").device());
        });
    }

    /** Runs {@code body}, then clears every argus.cuda.* property it may have set. */
    static void withProperties(Runnable body) {
        List<String> names = List.of("argus.cuda.device", "argus.cuda.memory", "argus.cuda.fusion", "argus.cuda.graphs",
                "argus.cuda.inplace", "argus.cuda.autotune", "argus.cuda.direct", "argus.cuda.precision",
                "argus.cuda.calibration", "argus.cuda.train.tf32", "argus.cuda.train.autotune",
                "argus.cuda.train.workspace", "argus.cuda.train.overwrite");
        for (String n : names) System.clearProperty(n);
        try {
            body.run();
        } finally {
            for (String n : names) System.clearProperty(n);
        }
    }
}
