package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.optim.OptimizerState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Suspend and resume: a run stopped halfway and resumed from its checkpoint ends with the very weights and momentum
 * of a run that never stopped (CPU training is bit-reproducible for a given thread count), with or without an EMA,
 * in FP32 and emulated FP16; resuming with zero momentum ends elsewhere, so the comparison can fail. Generations: the
 * last two are kept, a generation cut before its state or with damaged or mismatched files is skipped for the one
 * before it, saying why, and is never mixed with it; with none left the resume is refused naming each file and what
 * did not match. The layout before generations still resumes, and refuses its mixed files as before; an older
 * checkpoint without momentum resumes with zero momentum and says so once.
 */
@Budget(seconds = 50)
class ResumeTest {
    static final int ITERATIONS = 8;
    static final int THREADS = 2;
    static final long SEED = 1;

    @TempDir
    Path dir;
    Path data;
    Path cfg;
    NetworkSpec spec;

    @BeforeEach
    void tinyDataset() throws IOException {
        data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        cfg = writeCfg("tiny", TrainingRunTest.CFG);
        spec = NetworkSpec.load(cfg);
    }

    Path writeCfg(String name, String text) throws IOException {
        Path file = dir.resolve(name + ".cfg");
        Files.writeString(file, text);
        return file;
    }

    /** Runs to {@code ITERATIONS} from scratch or from {@code out}'s checkpoint, suspending after {@code stopAfter}. */
    TrainingRun.Result run(Path cfg, Path out, boolean resume, boolean fp16, int stopAfter, List<String> notices) {
        return run(cfg, out, resume, fp16, stopAfter, notices, 100);
    }

    TrainingRun.Result run(Path cfg, Path out, boolean resume, boolean fp16, int stopAfter, List<String> notices,
                           int checkpointEvery) {
        AtomicInteger done = new AtomicInteger();
        TrainingRun.Listener listener = new TrainingRun.Listener() {
            @Override
            public void onIteration(IterationStats s) { done.incrementAndGet(); }

            @Override
            public void onNotice(String message) { notices.add(message); }
        };
        return TrainingRun.run(new TrainingRun.Options(cfg, null, data, ITERATIONS, out, checkpointEvery, resume, SEED,
                THREADS, fp16), listener, TrainingRun.CPU, () -> stopAfter > 0 && done.get() >= stopAfter);
    }

    TrainingRun.Result run(Path out, boolean resume, int stopAfter) {
        return run(cfg, out, resume, false, stopAfter, new ArrayList<>());
    }

    Path weights(Path out) { return Checkpoint.weightsFile(out, spec); }

    /** The newest generation's files, as the pointer names them. */
    Path momentum(Path out) { return Checkpoint.latest(out, spec).momentum(); }

    Path state(Path out) { return Checkpoint.latest(out, spec).state(); }

    Path oldMomentum(Path out) { return OldLayoutCheckpoint.momentumFile(out, spec); }

    Path oldState(Path out) { return OldLayoutCheckpoint.stateFile(out, spec); }

    /**
     * Turns the newest generation in {@code out} into the layout argus train wrote before generations: the three
     * {@code _last} files, the state naming {@code tiny_last.momentum}.
     */
    void toOldLayout(Path out) throws IOException {
        Checkpoint.Generation g = Checkpoint.latest(out, spec);
        Files.move(g.weights(), weights(out), StandardCopyOption.REPLACE_EXISTING);
        Files.move(g.momentum(), oldMomentum(out));
        List<String> state = Files.readAllLines(g.state()).stream().filter(l -> !l.startsWith("weights="))
                .map(l -> l.startsWith("momentum=") ? "momentum=" + oldMomentum(out).getFileName() : l).toList();
        Files.write(oldState(out), state);
        for (int n : Checkpoint.generations(out, spec)) {
            for (Path f : Checkpoint.generation(out, spec, n).files()) Files.deleteIfExists(f);
        }
        Files.delete(Checkpoint.pointerFile(out, spec));
    }

    List<String> files(Path out) throws IOException {
        try (var s = Files.list(out)) {
            return s.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    static void assertSameBytes(Path expected, Path actual) throws IOException {
        assertEquals(-1, Files.mismatch(expected, actual), actual + " differs from " + expected + " at byte "
                + Files.mismatch(expected, actual));
    }

    static double largestMomentum(OptimizerState s) {
        double m = 0;
        for (OptimizerState.Tensor t : s.tensors()) for (float v : t.momentum()) m = Math.max(m, Math.abs(v));
        return m;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fp32", "fp32 ema", "fp16"})
    void aSuspendedAndResumedRunEndsBitForBitWhereAnUninterruptedOneDoes(String mode) throws Exception {
        boolean fp16 = mode.equals("fp16");
        if (mode.contains("ema")) {
            // the EMA starts after burn-in (iteration 2), so it runs at the suspension: the masters must travel too
            cfg = writeCfg("tiny", TrainingRunTest.CFG.replace("burn_in=0", "burn_in=2\nema_alpha=0.9"));
        }
        Path straight = dir.resolve("straight");
        Path stopped = dir.resolve("stopped");
        TrainingRun.Result whole = run(cfg, straight, false, fp16, 0, new ArrayList<>());
        assertEquals(ITERATIONS, whole.iterations());
        assertFalse(whole.suspended());

        TrainingRun.Result half = run(cfg, stopped, false, fp16, ITERATIONS / 2, new ArrayList<>());
        assertTrue(half.suspended());
        assertEquals(ITERATIONS / 2, half.iterations());
        MomentumFile.Saved saved = MomentumFile.read(momentum(stopped), spec);
        assertEquals(ITERATIONS / 2, saved.iteration());
        assertEquals(mode.contains("ema"), saved.state().emaRunning());
        assertTrue(largestMomentum(saved.state()) > 0, "momentum to restore");

        List<String> notices = new ArrayList<>();
        TrainingRun.Result rest = run(cfg, stopped, true, fp16, 0, notices);
        assertEquals(ITERATIONS, rest.iterations());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).startsWith("resuming from the checkpoint of iteration 4 (tiny_ckpt4.state, named by "
                + "tiny_last.checkpoint), loss scale "), notices.get(0));
        assertTrue(notices.get(0).endsWith(", momentum from tiny_ckpt4.momentum"), notices.get(0));
        assertSameBytes(weights(straight), weights(stopped));
        assertSameBytes(momentum(straight), momentum(stopped));
        assertEquals(whole.lossScale(), rest.lossScale());
        assertEquals(whole.skipped(), rest.skipped());
    }

    /**
     * A run started with its own burn-in and rate resumes on them without being told again (its checkpoint's state
     * keeps them), bit for bit where the uninterrupted run ends; given again, the options win.
     */
    @Test
    void aResumeContinuesOnTheScheduleTheRunStartedWith() throws Exception {
        Path straight = dir.resolve("straight"), stopped = dir.resolve("stopped");
        java.util.function.BiFunction<Path, Boolean, TrainingRun.Options> options = (out, resume) ->
                new TrainingRun.Options(cfg, null, data, ITERATIONS, out, 100, resume, SEED, THREADS, false, 0, 0,
                        resume ? TrainingRun.AUTO_BURN_IN : 3, resume ? 0f : 0.0025f);
        AtomicInteger done = new AtomicInteger();
        List<String> notices = new ArrayList<>();
        TrainingRun.Listener listener = new TrainingRun.Listener() {
            @Override
            public void onIteration(IterationStats s) { done.incrementAndGet(); }

            @Override
            public void onNotice(String message) { notices.add(message); }
        };
        TrainingRun.run(options.apply(straight, false), listener, TrainingRun.CPU, () -> false);
        done.set(0);
        TrainingRun.run(options.apply(stopped, false), listener, TrainingRun.CPU, () -> done.get() >= ITERATIONS / 2);
        java.util.Properties state = Checkpoint.load(state(stopped));
        assertEquals("3", state.getProperty("burn_in"), state.toString());
        assertEquals("0.0025", state.getProperty("learning_rate"), state.toString());
        TrainingRun.run(options.apply(stopped, true), listener, TrainingRun.CPU, () -> false);
        assertSameBytes(weights(straight), weights(stopped));
        // the control: resumed on the cfg's schedule instead, it ends elsewhere
        Path other = dir.resolve("other");
        done.set(0);
        TrainingRun.run(options.apply(other, false), listener, TrainingRun.CPU, () -> done.get() >= ITERATIONS / 2);
        TrainingRun.run(new TrainingRun.Options(cfg, null, data, ITERATIONS, other, 100, true, SEED, THREADS, false, 0, 0,
                0, 0.01f), listener, TrainingRun.CPU, () -> false);
        assertNotEquals(-1, Files.mismatch(weights(straight), weights(other)), "another schedule ends elsewhere");
    }

    /** The control: the same resume with the momentum zeroed ends elsewhere, so the test above can fail. */
    @Test
    void resumingWithZeroMomentumEndsElsewhere() throws Exception {
        Path straight = dir.resolve("straight");
        Path zeroed = dir.resolve("zeroed");
        run(straight, false, 0);
        run(zeroed, false, ITERATIONS / 2);
        MomentumFile.Saved saved = MomentumFile.read(momentum(zeroed), spec);
        List<OptimizerState.Tensor> zeros = saved.state().tensors().stream()
                .map(t -> new OptimizerState.Tensor(t.name(), new float[t.momentum().length], null)).toList();
        MomentumFile.write(momentum(zeroed), saved.iteration(), new OptimizerState(zeros, false));
        run(zeroed, true, 0);
        assertNotEquals(-1, Files.mismatch(weights(straight), weights(zeroed)), "zero momentum changes the weights");
    }

    @Test
    void aDamagedMomentumFileIsRefused() throws Exception {
        Path out = dir.resolve("out");
        run(out, false, 2);
        byte[] bytes = Files.readAllBytes(momentum(out));
        bytes[bytes.length / 2] ^= 0x10; // one bit of one float of the momentum
        Files.write(momentum(out), bytes);
        String refused = "--resume: no complete checkpoint in " + out + ": skipped the checkpoint of iteration 2: ";
        var e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertTrue(e.getMessage().startsWith(refused + momentum(out) + ": CRC-32 of the content is "), e.getMessage());
        assertTrue(e.getMessage().endsWith(": it was changed or cut after it was written"), e.getMessage());

        Files.write(momentum(out), java.util.Arrays.copyOf(bytes, bytes.length - 100)); // cut
        e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertTrue(e.getMessage().startsWith(refused + momentum(out) + ": CRC-32 of the content is "), e.getMessage());
    }

    @Test
    void theLastTwoGenerationsAreKeptAndLastWeightsIsTheNewest() throws Exception {
        Path out = dir.resolve("out");
        run(cfg, out, false, false, 0, new ArrayList<>(), 1);
        assertEquals(List.of("tiny_ckpt7.momentum", "tiny_ckpt7.state", "tiny_ckpt7.weights", "tiny_ckpt8.momentum",
                "tiny_ckpt8.state", "tiny_ckpt8.weights", "tiny_last.checkpoint", "tiny_last.weights"), files(out));
        assertEquals(8, Checkpoint.latest(out, spec).iteration());
        assertSameBytes(Checkpoint.generation(out, spec, 8).weights(), weights(out));

        // a fresh run over it removes the earlier run's generations first: never taken for its own at a resume
        List<String> notices = new ArrayList<>();
        run(cfg, out, false, false, 1, notices, 1);
        assertEquals(List.of("starting afresh (no --resume): removed the checkpoint of iteration 8 an earlier run "
                + "left in " + out), notices);
        assertEquals(List.of("tiny_ckpt1.momentum", "tiny_ckpt1.state", "tiny_ckpt1.weights", "tiny_last.checkpoint",
                "tiny_last.weights"), files(out));
    }

    /**
     * A kill after a generation's momentum and weights but before its state (written last): that generation is
     * skipped, saying so, and the run continues from the one before with its momentum and loss scale, ending bit for
     * bit where a run that never stopped does. A damaged newest generation falls back the same way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"no state", "damaged weights"})
    void aGenerationCutOrDamagedIsSkippedForTheOneBefore(String cut) throws Exception {
        Path straight = dir.resolve("straight");
        Path out = dir.resolve("out");
        run(straight, false, 0);
        run(cfg, out, false, false, 5, new ArrayList<>(), 1);
        Checkpoint.Generation newest = Checkpoint.generation(out, spec, 5);
        if (cut.equals("no state")) {
            Files.delete(newest.state());
        } else {
            byte[] bytes = Files.readAllBytes(newest.weights());
            Files.write(newest.weights(), java.util.Arrays.copyOf(bytes, bytes.length - 4));
        }
        List<String> notices = new ArrayList<>();
        assertEquals(ITERATIONS, run(cfg, out, true, false, 0, notices, 100).iterations());
        assertEquals(2, notices.size(), notices.toString());
        if (cut.equals("no state")) {
            assertEquals("skipped the checkpoint of iteration 5: tiny_ckpt5.momentum and tiny_ckpt5.weights without "
                    + "tiny_ckpt5.state, which is written last: it was cut before it was complete", notices.get(0));
        } else {
            assertTrue(notices.get(0).startsWith("skipped the checkpoint of iteration 5: " + newest.weights()),
                    notices.get(0));
        }
        assertTrue(notices.get(1).startsWith("resuming from the checkpoint of iteration 4 (tiny_ckpt4.state, the newest "
                + "complete one; tiny_last.checkpoint names 5), loss scale "), notices.get(1));
        assertSameBytes(weights(straight), weights(out));
        assertSameBytes(momentum(straight), momentum(out));
    }

    @Test
    void theMomentumOfAnotherNetworkIsRefused() throws Exception {
        Path out = dir.resolve("out");
        run(out, false, 2);
        // the same layers with twice the filters in the first convolution (yolo's filters unchanged)
        Path wide = writeCfg("wide", TrainingRunTest.CFG.replaceFirst("filters=8", "filters=16"));
        Path other = dir.resolve("other");
        run(wide, other, false, false, 2, new ArrayList<>());
        Files.copy(other.resolve("wide_ckpt2.momentum"), momentum(out), StandardCopyOption.REPLACE_EXISTING);
        var e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        String refused = "--resume: no complete checkpoint in " + out + ": skipped the checkpoint of iteration 2: ";
        assertEquals(refused + momentum(out) + ": does not match the network of " + cfg + ": tensor 0 is 'layer 0 weights' of "
                + "432 values, expected 'layer 0 weights' of 216 values", e.getMessage());

        // one layer fewer: the counts differ
        String mishLayer = "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\nstride=2\npad=1\nactivation=mish\n";
        assertTrue(TrainingRunTest.CFG.contains(mishLayer));
        Path shallow = writeCfg("shallow", TrainingRunTest.CFG.replace(mishLayer, ""));
        Path third = dir.resolve("third");
        run(shallow, third, false, false, 2, new ArrayList<>());
        Files.copy(third.resolve("shallow_ckpt2.momentum"), momentum(out), StandardCopyOption.REPLACE_EXISTING);
        e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertTrue(e.getMessage().startsWith(refused + momentum(out) + ": does not match the network of " + cfg
                + ": 5 tensors, expected 8 (tensor 3 is "), e.getMessage());
    }

    @Test
    void filesOfDifferentIterationsInAGenerationAreNeverMixed() throws Exception {
        Path out = dir.resolve("out");
        Path keep = dir.resolve("keep");
        Files.createDirectories(keep);
        run(out, false, 2);
        Files.copy(momentum(out), keep.resolve("m"));
        run(out, false, 0); // a fresh run over it, to iteration 8
        Files.copy(keep.resolve("m"), momentum(out), StandardCopyOption.REPLACE_EXISTING);
        var e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertEquals("--resume: no complete checkpoint in " + out + ": skipped the checkpoint of iteration 8: the "
                + "checkpoint's files disagree: " + state(out) + " says iteration 8, " + momentum(out) + " holds "
                + "iteration 2", e.getMessage());
    }

    @Test
    void theLayoutBeforeGenerationsResumesAndRefusesFilesOfDifferentIterationsNamingBoth() throws Exception {
        Path straight = dir.resolve("straight");
        Path old = dir.resolve("old");
        run(straight, false, 0);
        run(old, false, ITERATIONS / 2);
        toOldLayout(old);
        List<String> notices = new ArrayList<>();
        assertEquals(ITERATIONS, run(cfg, old, true, false, 0, notices).iterations());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).startsWith("resuming from " + oldState(old) + " (the layout before generations) at "
                + "iteration 4, loss scale "), notices.get(0));
        assertSameBytes(weights(straight), weights(old));
        assertSameBytes(momentum(straight), momentum(old));
        assertEquals(List.of("tiny_ckpt8.momentum", "tiny_ckpt8.state", "tiny_ckpt8.weights", "tiny_last.checkpoint",
                "tiny_last.weights"), files(old), "the old state and momentum are superseded");

        Path out = dir.resolve("out");
        Path keep = dir.resolve("keep");
        Files.createDirectories(keep);
        run(out, false, 2);
        toOldLayout(out);
        Files.copy(weights(out), keep.resolve("w"));
        Files.copy(oldMomentum(out), keep.resolve("m"));
        run(out, false, 0); // a fresh run over it, to iteration 8
        toOldLayout(out);
        // a kill between the momentum and the weights of the checkpoint at 8 would leave momentum of 8 and weights of 2
        Files.copy(keep.resolve("w"), weights(out), StandardCopyOption.REPLACE_EXISTING);
        var e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertEquals("the checkpoint's files disagree: " + oldState(out) + " says iteration 8, " + weights(out)
                + " holds seen=8 (iteration 2 at batch=4); a kill cut the checkpoint between its files, or they come "
                + "from different runs; delete tiny_last.state and tiny_last.momentum to resume from the weights "
                + "alone (iteration 2, zero momentum, initial loss scale)", e.getMessage());

        run(out, false, 0);
        toOldLayout(out);
        Files.copy(keep.resolve("m"), oldMomentum(out), StandardCopyOption.REPLACE_EXISTING);
        e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertTrue(e.getMessage().startsWith("the checkpoint's files disagree: " + oldState(out) + " says iteration 8, "
                + oldMomentum(out) + " holds iteration 2;"), e.getMessage());

        Files.delete(oldMomentum(out));
        e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertTrue(e.getMessage().startsWith(oldState(out) + " names " + oldMomentum(out) + ", which does not exist;"),
                e.getMessage());
    }

    @Test
    void anotherSeedIsRefused() throws Exception {
        Path out = dir.resolve("out");
        run(out, false, 2);
        var e = assertThrows(IllegalArgumentException.class, () -> TrainingRun.run(new TrainingRun.Options(cfg, null,
                data, ITERATIONS, out, 100, true, 7, THREADS, false), s -> { }));
        assertEquals("--seed 7, but " + state(out) + " was trained with seed 1 (batch k is drawn from the seed and k): "
                + "pass --seed 1", e.getMessage());
    }

    @Test
    void anOlderCheckpointResumesWithZeroMomentumAndSaysSoOnce() throws Exception {
        Path out = dir.resolve("out");
        Path zeroed = dir.resolve("zeroed");
        run(out, false, ITERATIONS / 2);
        toOldLayout(out);
        // what argus train wrote before momentum was saved: weights and a state of iteration and loss scaler only
        Files.delete(oldMomentum(out));
        List<String> older = Files.readAllLines(oldState(out)).stream()
                .filter(l -> !l.startsWith("momentum=") && !l.startsWith("seed=")).toList();
        Files.write(oldState(out), older);
        List<String> notices = new ArrayList<>();
        TrainingRun.Result r = run(cfg, out, true, false, 0, notices);
        assertEquals(ITERATIONS, r.iterations());
        assertEquals(List.of(oldState(out) + " is from before momentum was saved: resuming at iteration 4 with zero "
                + "momentum"), notices);

        // ... and continues as a resume with the momentum zeroed does
        run(zeroed, false, ITERATIONS / 2);
        MomentumFile.Saved saved = MomentumFile.read(momentum(zeroed), spec);
        MomentumFile.write(momentum(zeroed), saved.iteration(), new OptimizerState(saved.state().tensors().stream()
                .map(t -> new OptimizerState.Tensor(t.name(), new float[t.momentum().length], null)).toList(), false));
        run(zeroed, true, 0);
        assertSameBytes(weights(zeroed), weights(out));
    }

    @Test
    void weightsWithoutStateResumeFromTheWeightsAloneUnlessMomentumIsThere() throws Exception {
        Path out = dir.resolve("out");
        run(out, false, 2);
        toOldLayout(out);
        Files.delete(oldState(out));
        var e = assertThrows(IllegalArgumentException.class, () -> run(out, true, 0));
        assertEquals(oldMomentum(out) + " exists but " + oldState(out) + ", written last, does not: the checkpoint was cut "
                + "before it was complete; delete tiny_last.momentum to resume from the weights alone (iteration 2, "
                + "zero momentum, initial loss scale)", e.getMessage());
        Files.delete(oldMomentum(out));
        List<String> notices = new ArrayList<>();
        assertEquals(ITERATIONS, run(cfg, out, true, false, 0, notices).iterations());
        assertEquals(List.of("no " + oldState(out) + ": resuming from " + weights(out) + " alone at iteration 2 with "
                + "zero momentum and the initial loss scale"), notices);
    }
}
