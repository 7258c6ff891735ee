package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Choices by timing: the fastest candidate wins, a choice is written per CPU and read back by the next network
 * (another process in real use: a fresh tuner reads the file), an entry naming an implementation oneDNN no longer
 * offers is timed again, and tuning off takes oneDNN's first choice.
 */
@Budget(seconds = 10)
class ConvolutionTunerTest {
    @TempDir
    Path dir;

    static final List<ConvolutionTuner.Candidate> THREE = List.of(
            new ConvolutionTuner.Candidate(org.bytedeco.dnnl.global.dnnl.dnnl_convolution_direct, "brg_conv_fwd:avx512_core"),
            new ConvolutionTuner.Candidate(org.bytedeco.dnnl.global.dnnl.dnnl_convolution_direct, "jit:avx512_core"),
            new ConvolutionTuner.Candidate(org.bytedeco.dnnl.global.dnnl.dnnl_convolution_direct, "gemm:jit"));

    @Test
    void theFastestWinsAndIsRemembered() throws Exception {
        Map<String, Double> ms = Map.of("brg_conv_fwd:avx512_core", 2.0, "jit:avx512_core", 1.5, "gemm:jit", Double.NaN);
        ConvolutionTuner tuner = new ConvolutionTuner(new CpuOptions(CpuPrecision.FP32, true, dir));
        String key = "test-" + System.nanoTime();
        ConvolutionTuner.Choice c = tuner.choose(key, THREE, x -> ms.get(x.name()));
        assertEquals("jit:avx512_core", c.candidate().name());
        assertFalse(c.fromCache());
        assertEquals(3, c.timesMs().size());

        List<Path> files;
        try (var s = Files.list(dir)) {
            files = s.toList();
        }
        assertEquals(1, files.size(), "one file per CPU");
        assertTrue(files.get(0).getFileName().toString().contains("-f" + CpuInfo.current().family() + "-m" + CpuInfo.current().model()),
                files.get(0).toString());
        Properties p = new Properties();
        try (var in = Files.newInputStream(files.get(0))) {
            p.load(in);
        }
        assertEquals("direct|jit:avx512_core", p.getProperty(key));

        ConvolutionTuner.Choice again = new ConvolutionTuner(new CpuOptions(CpuPrecision.FP32, true, dir))
                .choose(key, THREE, x -> { throw new AssertionError("timed again"); });
        assertEquals("jit:avx512_core", again.candidate().name());
        assertTrue(again.fromCache());

        // oneDNN no longer offers the remembered one: time again
        List<ConvolutionTuner.Candidate> withoutIt = List.of(THREE.get(0), THREE.get(2));
        ConvolutionTuner.Choice retimed = tuner.choose(key, withoutIt, x -> x.name().equals("gemm:jit") ? 1.0 : 3.0);
        assertEquals("gemm:jit", retimed.candidate().name());
        assertFalse(retimed.fromCache());
    }

    @Test
    void contendersAreTimedAgainInReverseOrderAndTheirBestCounts() {
        // the machine is slow while brg is timed first (2.5 ms, within twice jit's 1.5): a single pass would keep jit;
        // gemm, over twice the best, is timed once
        java.util.List<String> order = new java.util.ArrayList<>();
        ConvolutionTuner tuner = new ConvolutionTuner(new CpuOptions(CpuPrecision.FP32, true, dir));
        ConvolutionTuner.Choice c = tuner.choose("test-two-passes", THREE, x -> {
            order.add(x.name());
            return switch (x.name()) {
                case "jit:avx512_core" -> 1.5;
                case "gemm:jit" -> 9.0;
                default -> order.size() == 1 ? 2.5 : 1.0;
            };
        });
        assertEquals(List.of("brg_conv_fwd:avx512_core", "jit:avx512_core", "gemm:jit", "jit:avx512_core",
                "brg_conv_fwd:avx512_core"), order);
        assertEquals("brg_conv_fwd:avx512_core", c.candidate().name());
        assertEquals(1.0, c.timesMs().get("direct|brg_conv_fwd:avx512_core"));
        assertEquals(9.0, c.timesMs().get("direct|gemm:jit"));
    }

    @Test
    void withoutTuningOneDnnsFirstChoice() {
        ConvolutionTuner tuner = new ConvolutionTuner(new CpuOptions(CpuPrecision.FP32, false, null));
        assertEquals("brg_conv_fwd:avx512_core", tuner.choose("k", THREE, x -> { throw new AssertionError("timed"); }).candidate().name());
    }

    @Test
    void aSecondNetworkReadsTheChoicesOfTheFirst() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"), 96, 64);
        CpuOptions options = new CpuOptions(CpuPrecision.FP32, true, dir);
        float[] first;
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1, options)) {
            net.forward(1);
            first = net.outputImage(spec.yoloLayers().get(0).index(), 0);
        }
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1, options)) {
            net.forward(1);
            for (var c : net.convolutionChoices(1)) {
                assertTrue(c.fromCache() || c.timesMs().isEmpty(), "layer " + c.layer() + " was timed again: " + c);
            }
            float[] second = net.outputImage(spec.yoloLayers().get(0).index(), 0);
            assertEquals(first.length, second.length);
            for (int i = 0; i < first.length; i++) assertEquals(first[i], second[i], 1e-4f * Math.max(1, Math.abs(first[i])));
        }
    }

    @Test
    void choicesWithOurWinogradAreKeptApartFromThoseWithout() throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"), 96, 64);
        for (WinogradPolicy w : List.of(WinogradPolicy.AUTO, WinogradPolicy.OFF)) {
            try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1,
                    new CpuOptions(CpuPrecision.FP32, true, dir).withWinograd(w))) {
                net.forward(1);
            }
        }
        Properties p = new Properties();
        try (var files = Files.list(dir); var in = Files.newInputStream(files.findFirst().orElseThrow())) {
            p.load(in);
        }
        int with = 0;
        int without = 0;
        for (String key : p.stringPropertyNames()) {
            if (!key.contains(" k3 s1x1 ")) continue;
            if (key.endsWith(" +argus-f2x2,f4x4")) {
                with++;
                assertTrue(p.getProperty(key).matches("winograd\\|argus-f[24]x[24]|direct\\|.*"), key + " = " + p.getProperty(key));
            } else {
                without++;
                assertFalse(p.getProperty(key).contains("argus"), "chosen with winograd off: " + key + " = " + p.getProperty(key));
            }
        }
        assertTrue(with > 0, "no 3x3 stride-1 choice made with our Winograd among the candidates: " + p);
        assertEquals(with, without, "each 3x3 stride-1 shape once with, once without: " + p);
    }
}
