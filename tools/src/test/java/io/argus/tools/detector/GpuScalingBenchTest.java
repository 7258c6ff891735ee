package io.argus.tools.detector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.detector.testing.StandInBackend;
import io.argus.testkit.Budget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The several-GPU scaling benchmark without a GPU: which counts it measures, its result line, and its measurement
 * loop with CPU backends and stand-ins in place of GPUs (every worker kept busy, images counted per worker, a failed
 * device failing the run).
 */
@Budget(seconds = 15)
class GpuScalingBenchTest {
    private static final Pattern LINE = Pattern.compile("argus-gpus model=(\\S+) batch=(\\d+) gpus=(\\d+) "
            + "images/s=([0-9.]+) per_gpu=([0-9.,]+) scaling=([0-9.]+)");

    private static final BgrImage FRAME = BgrImage.of(32, 24, new byte[32 * 24 * 3]);

    @Test
    void countsAreAscendingWithOneFirstAndBoundedByTheDevices() {
        assertArrayEquals(new int[] {1, 2, 4}, GpuScalingBench.counts(new int[] {4, 2, 2}, 4));
        assertArrayEquals(new int[] {1, 2}, GpuScalingBench.counts(new int[] {2}, 2));
        assertArrayEquals(new int[] {1}, GpuScalingBench.counts(new int[] {1}, 1));
        assertEquals("--gpus 4: this host has 2 CUDA devices", assertThrows(IllegalArgumentException.class,
                () -> GpuScalingBench.counts(new int[] {1, 4}, 2)).getMessage());
        assertEquals("--gpus 2: this host has 1 CUDA device", assertThrows(IllegalArgumentException.class,
                () -> GpuScalingBench.counts(new int[] {2}, 1)).getMessage());
        assertEquals("--gpus 0: expected GPU counts of at least 1", assertThrows(IllegalArgumentException.class,
                () -> GpuScalingBench.counts(new int[] {0, 2}, 8)).getMessage());
    }

    @Test
    void theLineSaysTotalPerGpuAndScalingOverOneGpu() {
        var one = new GpuScalingBench.Measurement(1, 64, 2.0, new long[] {2000});
        var two = new GpuScalingBench.Measurement(2, 64, 2.0, new long[] {1900, 1800});
        assertEquals("argus-gpus model=yolov4-tiny batch=64 gpus=1 images/s=1000.0 per_gpu=1000.0 scaling=1.000",
                GpuScalingBench.line("yolov4-tiny", one, one));
        assertEquals("argus-gpus model=yolov4-tiny batch=64 gpus=2 images/s=1850.0 per_gpu=950.0,900.0 scaling=0.925",
                GpuScalingBench.line("yolov4-tiny", two, one));
    }

    @Test
    void wholeDetectCallsOnCpuBackendsStandingInForGpus() throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 64, 64);
        Model model = new Model(spec, RandomWeights.of(spec, 1), Model.genericNames(spec.classes()));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        GpuScalingBench bench = new GpuScalingBench(0.3, 1, 2, new PrintStream(printed, true, StandardCharsets.UTF_8));
        List<GpuScalingBench.Measurement> ms = bench.run("yolov4-tiny", new int[] {1, 2}, 2,
                n -> new GpuWorkers(n, d -> new CpuBackend(model, 2)), FRAME, DetectParams.DEFAULT);
        assertEquals(2, ms.size());
        for (GpuScalingBench.Measurement m : ms) {
            assertEquals(m.gpus(), m.imagesPerGpu().length);
            for (long images : m.imagesPerGpu()) {
                assertTrue(images > 0 && images % 2 == 0, "whole batches of 2 on every worker: "
                        + Arrays.toString(m.imagesPerGpu()));
            }
            assertTrue(m.seconds() >= 0.3, "timed " + m.seconds() + " s");
        }
        List<Matcher> lines = printed.toString(StandardCharsets.UTF_8).lines().map(LINE::matcher)
                .filter(Matcher::matches).toList();
        assertEquals(2, lines.size(), printed.toString(StandardCharsets.UTF_8));
        for (int i = 0; i < 2; i++) {
            Matcher l = lines.get(i);
            assertEquals("yolov4-tiny", l.group(1));
            assertEquals("2", l.group(2));
            assertEquals(String.valueOf(i + 1), l.group(3));
            assertEquals(ms.get(i).imagesPerSecond(), Double.parseDouble(l.group(4)), 0.05);
            assertEquals(i + 1, l.group(5).split(",").length);
            assertEquals(ms.get(i).scaling(ms.get(0)), Double.parseDouble(l.group(6)), 0.0005);
        }
    }

    @Test
    void everyWorkerIsKeptBusySoEqualWorkersScale() throws Exception {
        // stand-ins that sleep 4 ms per image use no CPU: two of them should give twice one's images/s
        GpuScalingBench bench = new GpuScalingBench(0.5, 2, 2, new PrintStream(new ByteArrayOutputStream()));
        List<GpuScalingBench.Measurement> ms = bench.run("stand-in", new int[] {1, 2}, 4,
                n -> new GpuWorkers(n, d -> new StandInBackend(d, 4, 4)), FRAME, DetectParams.DEFAULT);
        double scaling = ms.get(1).scaling(ms.get(0));
        assertTrue(scaling > 0.8 && scaling < 1.2, "scaling " + scaling + " of " + ms);
    }

    @Test
    void perGpuFiguresAreEachWorkersOwn() throws Exception {
        // device 1 takes three times as long per image: it should finish about a third as many
        GpuScalingBench bench = new GpuScalingBench(0.5, 1, 2, new PrintStream(new ByteArrayOutputStream()));
        GpuScalingBench.Measurement m;
        try (GpuWorkers workers = new GpuWorkers(2, d -> new StandInBackend(d, 4, d == 0 ? 2 : 6))) {
            m = bench.measure(workers, java.util.Collections.nCopies(4, FRAME), DetectParams.DEFAULT);
        }
        double ratio = m.imagesPerSecond(0) / m.imagesPerSecond(1);
        assertTrue(ratio > 1.8, "device 0 / device 1 images/s = " + ratio + " " + Arrays.toString(m.imagesPerGpu()));
    }

    @Test
    void aGpuTakenOutFailsTheMeasurement() {
        GpuScalingBench bench = new GpuScalingBench(5, 1, 2, new PrintStream(new ByteArrayOutputStream()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
            try (GpuWorkers workers = new GpuWorkers(2, d -> new StandInBackend(d, 4, 1).failingFrom(d == 1 ? 3 : 1 << 30))) {
                bench.measure(workers, java.util.Collections.nCopies(4, FRAME), DetectParams.DEFAULT);
            }
        });
        assertTrue(e.getMessage().startsWith("GPU worker on device 1 taken out after cudaStreamSynchronize"),
                e.getMessage());
    }
}
