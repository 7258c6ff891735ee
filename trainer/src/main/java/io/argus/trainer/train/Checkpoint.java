package io.argus.trainer.train;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.io.AtomicFile;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.precision.LossScaler;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A run's checkpoint: everything a resumed run needs to take exactly the steps an uninterrupted one would, in three
 * files in the output directory, each written atomically ({@link AtomicFile}) in this order:
 * <ol>
 *   <li>{@code <cfg>_last.momentum} ({@link MomentumFile}): every tensor's momentum (and the masters while an EMA
 *   runs), with the iteration;</li>
 *   <li>{@code <cfg>_last.weights}: Darknet's .weights (the EMA while it runs, as Darknet's), with
 *   {@code seen} = iteration x batch, so the data order's position;</li>
 *   <li>{@code <cfg>_last.state} (properties), last, as the commit: the iteration, the loss scaler (scale, clean
 *   steps, skipped steps), the seed of the data order, the momentum file's name.</li>
 * </ol>
 * The set cannot be replaced in one atomic step (the .weights keep their fixed, user-facing name), so each file
 * names its iteration and a resume requires all three to agree: a kill -9 or crash between the files leaves files of
 * two iterations, which a resume refuses, naming them, instead of mixing them. SIGTERM and SIGINT never cut a
 * checkpoint ({@code argus train} finishes it first). Batch k of the data is drawn from (seed, k) alone, so the
 * iteration and the seed fix the data order's position.
 */
public final class Checkpoint {
    private Checkpoint() {}

    /** What a resume starts from. {@code optimizer} null: none saved (zero momentum); {@code notice} says so. */
    public record Resumed(ModelWeights weights, int iteration, Scaler scaler, OptimizerState optimizer,
                          String notice) {}

    /** The loss scaler's saved state; null in {@link Resumed} for a checkpoint without a state file. */
    public record Scaler(float scale, int cleanSteps, long skipped) {
        public void restoreInto(LossScaler s) { s.restore(scale, cleanSteps, skipped); }
    }

    public static Path weightsFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.weights");
    }

    public static Path momentumFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.momentum");
    }

    public static Path stateFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.state");
    }

    /** Writes the trainer's checkpoint: momentum, weights, then the state. */
    public static void write(Path out, NetworkSpec spec, Trainer trainer, long seed) {
        int iteration = trainer.completed();
        Path momentum = momentumFile(out, spec);
        MomentumFile.write(momentum, iteration, trainer.backend().optimizerState());
        WeightsFile.write(weightsFile(out, spec), spec, trainer.backend().weights(trainer.seen()));
        Properties p = new Properties();
        p.setProperty("iteration", String.valueOf(iteration));
        p.setProperty("loss_scale", String.valueOf(trainer.scaler().scale()));
        p.setProperty("clean_steps", String.valueOf(trainer.scaler().cleanSteps()));
        p.setProperty("skipped", String.valueOf(trainer.scaler().skipped()));
        p.setProperty("seed", String.valueOf(seed));
        p.setProperty("momentum", momentum.getFileName().toString());
        StringWriter w = new StringWriter();
        try {
            p.store(w, "argus train state beside " + weightsFile(out, spec).getFileName() + ", written last");
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        AtomicFile.writeString(stateFile(out, spec), w.toString());
    }

    /**
     * Reads the checkpoint in {@code out} for a resume with batches of {@code batch} images and data seed
     * {@code seed}. A checkpoint from before momentum was saved (a state without {@code momentum}), or weights without
     * a state, resume with zero momentum and a notice.
     *
     * @throws IllegalArgumentException naming the files: when there is none, when its files name different
     *                                  iterations, when the seed differs, when a file is damaged or of another
     *                                  network
     */
    public static Resumed read(Path out, NetworkSpec spec, int batch, long seed) {
        Path weightsFile = weightsFile(out, spec);
        Path stateFile = stateFile(out, spec);
        Path momentumFile = momentumFile(out, spec);
        if (!Files.isRegularFile(weightsFile)) {
            throw new IllegalArgumentException("--resume: no checkpoint " + weightsFile + " to resume from");
        }
        ModelWeights weights = WeightsFile.read(weightsFile, spec);
        long seenIteration = weights.seen() / batch;
        String weightsAlone = " to resume from the weights alone (iteration " + seenIteration
                + ", zero momentum, initial loss scale)";
        String fromWeightsAlone = "delete " + stateFile.getFileName() + " and " + momentumFile.getFileName()
                + weightsAlone;
        if (!Files.isRegularFile(stateFile)) {
            if (Files.exists(momentumFile)) {
                throw new IllegalArgumentException(momentumFile + " exists but " + stateFile + ", written last, does "
                        + "not: the checkpoint was cut before it was complete; delete " + momentumFile.getFileName()
                        + weightsAlone);
            }
            return new Resumed(weights, (int) seenIteration, null, null, "no " + stateFile + ": resuming from "
                    + weightsFile + " alone at iteration " + seenIteration
                    + " with zero momentum and the initial loss scale");
        }
        Properties state = load(stateFile);
        int iteration = (int) number(stateFile, state, "iteration", null);
        if (weights.seen() != (long) iteration * batch) {
            throw new IllegalArgumentException("the checkpoint's files disagree: " + stateFile + " says iteration "
                    + iteration + ", " + weightsFile + " holds seen=" + weights.seen() + " (iteration "
                    + seenIteration + " at batch=" + batch + "); a kill cut the checkpoint between its files, or they "
                    + "come from different runs; " + fromWeightsAlone);
        }
        long savedSeed = number(stateFile, state, "seed", String.valueOf(seed)); // older states: not recorded
        if (savedSeed != seed) {
            throw new IllegalArgumentException("--seed " + seed + ", but " + stateFile + " was trained with seed "
                    + savedSeed + " (batch k is drawn from the seed and k): pass --seed " + savedSeed);
        }
        Scaler scaler = null;
        if (state.getProperty("loss_scale") != null) {
            scaler = new Scaler(Float.parseFloat(state.getProperty("loss_scale").trim()),
                    (int) number(stateFile, state, "clean_steps", "0"), number(stateFile, state, "skipped", "0"));
        }
        String momentumName = state.getProperty("momentum");
        if (momentumName == null) {
            return new Resumed(weights, iteration, scaler, null, stateFile + " is from before momentum was saved: "
                    + "resuming at iteration " + iteration + " with zero momentum");
        }
        Path named = out.resolve(momentumName.trim());
        if (!Files.isRegularFile(named)) {
            throw new IllegalArgumentException(stateFile + " names " + named + ", which does not exist; "
                    + fromWeightsAlone);
        }
        MomentumFile.Saved saved = MomentumFile.read(named, spec);
        if (saved.iteration() != iteration) {
            throw new IllegalArgumentException("the checkpoint's files disagree: " + stateFile + " says iteration "
                    + iteration + ", " + named + " holds iteration " + saved.iteration()
                    + "; a kill cut the checkpoint between its files, or they come from different runs; "
                    + fromWeightsAlone);
        }
        return new Resumed(weights, iteration, scaler, saved.state(), null);
    }

    /** A whole-number property; {@code otherwise} null: required. */
    private static long number(Path file, Properties p, String key, String otherwise) {
        String v = p.getProperty(key, otherwise);
        if (v == null) throw new IllegalArgumentException(file + ": no " + key + "=, expected a whole number");
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": " + key + "=" + v.trim() + ", expected a whole number");
        }
    }

    private static Properties load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return p;
    }
}
