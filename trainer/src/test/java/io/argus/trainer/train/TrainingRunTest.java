package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A training job end to end on a tiny dataset: checkpoints, the final weights, resume, and bad input. */
@Budget(seconds = 5)
public class TrainingRunTest {
    @TempDir
    Path dir;

    /** A tiny network (32x32, two 8-filter convolutions, one [yolo] head of 5 classes), batch 4 in 2 passes. */
    public static final String CFG = MixedPrecisionTest.CFG.replace("classes=2", "classes=5").replace("filters=21",
            "filters=30");

    @Test
    void checkpointsThenResumesWhereItStopped() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, CFG);
        Path out = dir.resolve("out");
        List<Integer> seen = new ArrayList<>();
        List<Integer> checkpoints = new ArrayList<>();
        TrainingRun.Listener listener = new TrainingRun.Listener() {
            @Override
            public void onIteration(IterationStats s) {
                seen.add(s.iteration());
                assertTrue(Double.isFinite(s.lossPerImage().total()) && s.lossPerImage().total() > 0);
            }

            @Override
            public void onCheckpoint(Path file, int iteration) {
                checkpoints.add(iteration);
            }
        };
        TrainingRun.Result first = TrainingRun.run(new TrainingRun.Options(cfg, null, data, 6, out, 4, false, 1, 2,
                false), listener);
        assertEquals(List.of(1, 2, 3, 4, 5, 6), seen);
        assertEquals(List.of(4, 6), checkpoints);
        assertEquals(out.resolve("tiny_last.weights"), first.weights());
        NetworkSpec spec = NetworkSpec.load(cfg);
        ModelWeights w = WeightsFile.read(first.weights(), spec);
        assertEquals(6L * spec.net().batch(), w.seen(), "seen counts images, as Darknet");
        assertTrue(Files.readString(out.resolve("tiny_last.checkpoint")).contains("iteration=6"));

        seen.clear();
        TrainingRun.Result resumed = TrainingRun.run(new TrainingRun.Options(cfg, null, data, 9, out, 100, true, 1, 2,
                false), listener);
        assertEquals(List.of(7, 8, 9), seen, "continues after the checkpoint's iteration");
        assertEquals(9, resumed.iterations());
        assertEquals(9L * spec.net().batch(), WeightsFile.read(resumed.weights(), spec).seen());
    }

    @Test
    void theLoadersThreadsAndDepthChangeNothingButTime() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, CFG);
        byte[] first = null;
        for (int[] loader : new int[][] {{1, 1}, {3, 3}}) {
            Path out = dir.resolve("out-" + loader[0] + "-" + loader[1]);
            TrainingRun.Result r = TrainingRun.run(new TrainingRun.Options(cfg, null, data, 3, out, 100, false, 1, 2,
                    false, loader[0], loader[1]), s -> { });
            assertTrue(r.dataWaitSeconds() >= 0 && r.dataWaitSeconds() <= r.seconds(), r.toString());
            byte[] weights = Files.readAllBytes(r.weights());
            if (first == null) first = weights;
            else assertTrue(java.util.Arrays.equals(first, weights), "the same weights with 1 and 3 loader threads");
        }
    }

    @Test
    void mismatchedClassesAndMissingCheckpointAreExplained() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 4, 3, 96, 0.25);
        Path cfg = dir.resolve("two.cfg");
        Files.writeString(cfg, MixedPrecisionTest.CFG);
        var e = assertThrows(IllegalArgumentException.class, () -> TrainingRun.run(new TrainingRun.Options(cfg, null,
                data, 2, dir.resolve("o"), 10, false, 1, 1, false), s -> { }));
        assertEquals(data + ": classes=5, but the cfg " + cfg + " has classes=2 in its [yolo] layers", e.getMessage());
        Path cfg5 = dir.resolve("five.cfg");
        Files.writeString(cfg5, CFG);
        e = assertThrows(IllegalArgumentException.class, () -> TrainingRun.run(new TrainingRun.Options(cfg5, null,
                data, 2, dir.resolve("o"), 10, true, 1, 1, false), s -> { }));
        assertTrue(e.getMessage().startsWith("--resume: no checkpoint"), e.getMessage());
    }
}
