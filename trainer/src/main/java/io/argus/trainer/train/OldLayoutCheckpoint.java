package io.argus.trainer.train;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.trainer.optim.OptimizerState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The checkpoint layout before generations, still resumed: three fixed names, {@code <cfg>_last.weights},
 * {@code <cfg>_last.momentum} and {@code <cfg>_last.state}, each replaced in place at every checkpoint, so a kill
 * between them left files of two iterations. Those are refused naming the files (never mixed); the first checkpoint
 * of the resumed run writes a generation ({@link Checkpoint}) and removes the old state and momentum.
 */
final class OldLayoutCheckpoint {
    private OldLayoutCheckpoint() {}

    static Path momentumFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.momentum");
    }

    static Path stateFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.state");
    }

    /**
     * Reads the old layout for a resume with batches of {@code batch} images and data seed {@code seed}. A checkpoint
     * from before momentum was saved (a state without {@code momentum}), or weights without a state, resume with zero
     * momentum and a notice.
     *
     * @throws IllegalArgumentException naming the files: when there is none, when its files name different
     *                                  iterations, when the seed differs, when a file is damaged or of another
     *                                  network
     */
    static Checkpoint.Resumed read(Path out, NetworkSpec spec, int batch, long seed) {
        Path weightsFile = Checkpoint.weightsFile(out, spec);
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
            return new Checkpoint.Resumed(weights, (int) seenIteration, null, null, List.of("no " + stateFile
                    + ": resuming from " + weightsFile + " alone at iteration " + seenIteration
                    + " with zero momentum and the initial loss scale"), null);
        }
        Properties state = Checkpoint.load(stateFile);
        int iteration = (int) Checkpoint.number(stateFile, state, "iteration", null);
        if (weights.seen() != (long) iteration * batch) {
            throw new IllegalArgumentException("the checkpoint's files disagree: " + stateFile + " says iteration "
                    + iteration + ", " + weightsFile + " holds seen=" + weights.seen() + " (iteration "
                    + seenIteration + " at batch=" + batch + "); a kill cut the checkpoint between its files, or they "
                    + "come from different runs; " + fromWeightsAlone);
        }
        Checkpoint.requireSeed(stateFile, state, seed);
        Checkpoint.Scaler scaler = Checkpoint.scaler(stateFile, state);
        String momentumName = state.getProperty("momentum");
        if (momentumName == null) {
            return new Checkpoint.Resumed(weights, iteration, scaler, null, List.of(stateFile + " is from before "
                    + "momentum was saved: resuming at iteration " + iteration + " with zero momentum"), null);
        }
        Path named = out.resolve(Path.of(momentumName.trim()).getFileName()); // a name beside it, never a path
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
        OptimizerState optimizer = saved.state();
        return new Checkpoint.Resumed(weights, iteration, scaler, optimizer, List.of("resuming from " + stateFile
                + " (the layout before generations) at iteration " + iteration + Checkpoint.describe(scaler)
                + ", momentum from " + named.getFileName()), null);
    }
}
