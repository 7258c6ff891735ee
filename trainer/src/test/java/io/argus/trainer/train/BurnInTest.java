package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Burn-in ramps the rate up for random weights only: a run from given weights trains at the cfg's rate from its first
 * update and its loss falls within a few iterations; from scratch the cfg's burn_in still holds the rate near 0;
 * {@code --learning-rate} replaces the cfg's rate.
 */
@Budget(seconds = 5)
class BurnInTest {
    static final int ITERATIONS = 10;
    static final float RATE = 0.01f;

    @TempDir
    Path dir;

    /** The tiny network with a long burn-in, as the demo cfg's 100 iterations dwarf a 10-iteration fine-tune. */
    static final String CFG = TrainingRunTest.CFG.replace("learning_rate=0.001", "learning_rate=" + RATE)
            .replace("burn_in=0", "burn_in=1000");

    @Test
    void fromWeightsTheRateStartsAtItsValueAndTheLossFalls() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, CFG);
        NetworkSpec spec = NetworkSpec.load(cfg);
        Path weights = dir.resolve("given.weights");
        WeightsFile.write(weights, spec, WeightsInit.darknet(spec, 3));

        List<IterationStats> tuned = run(cfg, weights, data, "tuned", TrainingRun.AUTO_BURN_IN);
        for (IterationStats s : tuned) assertEquals(RATE, s.learningRate(), 1e-9, "rate of iteration " + s.iteration());
        double first = meanLoss(tuned.subList(0, 3));
        double last = meanLoss(tuned.subList(ITERATIONS - 3, ITERATIONS));
        assertTrue(last < 0.9 * first, "loss of the last 3 iterations " + last + ", of the first 3 " + first);

        List<IterationStats> scratch = run(cfg, null, data, "scratch", TrainingRun.AUTO_BURN_IN);
        for (IterationStats s : scratch) {
            assertEquals(RATE * Math.pow(s.iteration() / 1000.0, 4), s.learningRate(), 1e-9,
                    "from scratch, burn-in's ramp at iteration " + s.iteration());
        }
        List<IterationStats> forced = run(cfg, weights, data, "forced", 5);
        assertTrue(forced.get(0).learningRate() < RATE / 5, "--burn-in 5 ramps even from weights");
        assertEquals(RATE, forced.get(ITERATIONS - 1).learningRate(), 1e-9);

        List<IterationStats> slower = run(cfg, weights, data, "slower", TrainingRun.AUTO_BURN_IN, RATE / 10);
        for (IterationStats s : slower) assertEquals(RATE / 10, s.learningRate(), 1e-9, "--learning-rate");
    }

    private List<IterationStats> run(Path cfg, Path weights, Path data, String out, int burnIn) {
        return run(cfg, weights, data, out, burnIn, 0f);
    }

    private List<IterationStats> run(Path cfg, Path weights, Path data, String out, int burnIn, float rate) {
        List<IterationStats> stats = new ArrayList<>();
        TrainingRun.run(new TrainingRun.Options(cfg, weights, data, ITERATIONS, dir.resolve(out), 100, false, 1, 2,
                false, 1, 2, burnIn, rate), stats::add);
        assertEquals(ITERATIONS, stats.size());
        return stats;
    }

    private static double meanLoss(List<IterationStats> stats) {
        return stats.stream().mapToDouble(s -> s.lossPerImage().total()).average().orElseThrow();
    }
}
