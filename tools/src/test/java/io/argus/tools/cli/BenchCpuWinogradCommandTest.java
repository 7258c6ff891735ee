package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.testing.ProjectFiles;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * `argus bench --backend cpu --winograd ...`: a bad choice stops it with the choices named; forced, every 3x3
 * stride-1 convolution runs our Winograd and says so in the implementation lines; --layer-times prints a line per
 * convolution; several choices are timed in turns and compared.
 */
@Budget(seconds = 10)
class BenchCpuWinogradCommandTest {
    private static final String CFG = ProjectFiles.cfg("yolov3-tiny").toString();

    @Test
    void aBadChoiceIsRefused() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cpu", "--winograd", "f3x3", "--cfg", CFG);
        assertEquals(2, r.code(), r.out());
        assertEquals("argus bench: expected auto, off, f2x2 or f4x4, found \"f3x3\"", r.err().strip());
    }

    @Test
    void forcedItRunsOnEveryThreeByThreeStrideOneConvolution() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cpu", "--cfg", CFG, "--width", "96",
                "--height", "64", "--seconds", "0.2", "--min-iterations", "2", "--warmup", "1", "--winograd", "f4x4",
                "--layer-times", "3", "--no-tune");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("  conv 3x3/1: 9 x winograd|argus-f4x4\n"), r.out());
        assertEquals(13, r.out().lines().filter(l -> l.startsWith("  layer ")).count(), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  layer   0 conv 3x3/1 ") && l.endsWith("winograd|argus-f4x4")),
                r.out());
    }

    @Test
    void severalChoicesAreTimedInTurns() {
        ArgusRun.Result r = ArgusRun.argus("bench", "--backend", "cpu", "--cfg", CFG, "--width", "96",
                "--height", "64", "--seconds", "0.2", "--min-iterations", "2", "--warmup", "1", "--winograd", "off,f2x2",
                "--no-tune");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("argus-fp32 winograd off batch   1:") && r.out().contains("runs, in turns)"), r.out());
        assertTrue(r.out().contains("ratio ours(fp32 winograd f2x2)/ours(fp32 winograd off) = "), r.out());
        int f2x2 = r.out().indexOf("winograd f2x2:\n");
        assertTrue(f2x2 > 0 && r.out().indexOf("  conv 3x3/1: 9 x winograd|argus-f2x2\n", f2x2) > f2x2, r.out());
    }
}
