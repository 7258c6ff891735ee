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
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A run's checkpoints, as generations: everything a resumed run needs to take exactly the steps an uninterrupted one
 * would, in files named by the iteration they were written after, so that a new checkpoint never replaces the last
 * complete one before it is complete itself. Generation N is, each file written atomically ({@link AtomicFile}), in
 * this order:
 * <ol>
 *   <li>{@code <cfg>_ckpt<N>.momentum} ({@link MomentumFile}): every tensor's momentum (and the masters while an EMA
 *   runs), with the iteration;</li>
 *   <li>{@code <cfg>_ckpt<N>.weights}: Darknet's .weights (the EMA while it runs, as Darknet's), with
 *   {@code seen} = N x batch, so the data order's position;</li>
 *   <li>{@code <cfg>_ckpt<N>.state} (properties), the generation's commit: the iteration, the loss scaler (scale,
 *   clean steps, skipped steps), the seed of the data order, the names of the other two files.</li>
 * </ol>
 * Then the pointer {@code <cfg>_last.checkpoint} is replaced to name generation N, {@code <cfg>_last.weights} (the
 * name users look for) becomes a hard link to its weights (a copy where links are not supported), and every
 * generation but N and the newest complete one before it is removed, state first. Before writing generation N, a
 * state of that iteration left by an abandoned path (a resume from an older generation) is deleted first, so a
 * generation with a state always holds the files written just before that state.
 *
 * <p>A resume ({@link #read}) takes the newest complete generation, whatever instant a kill -9 or power cut struck:
 * one without its state was cut before its commit and is skipped, saying so; one whose files are damaged or disagree
 * is skipped naming the file and what did not match; files of two generations are never mixed. A state newer than the
 * pointer (a kill between the two) is complete and is taken. The checkpoint of the layout before generations (three
 * files replaced in place) still resumes ({@link OldLayoutCheckpoint}). A run that does not resume removes the
 * checkpoint files of an earlier run in its directory first, so generations of two runs never meet. SIGTERM and
 * SIGINT never cut a checkpoint ({@code argus train} finishes it first). Batch k of the data is drawn from (seed, k)
 * alone, so the iteration and the seed fix the data order's position.
 */
public final class Checkpoint {
    private Checkpoint() {}

    /**
     * What a resume starts from. {@code optimizer} null: none saved (zero momentum). {@code notices}: which
     * checkpoint it is and why newer ones were skipped, or that momentum is missing, each once for the user.
     */
    public record Resumed(ModelWeights weights, int iteration, Scaler scaler, OptimizerState optimizer,
                          List<String> notices, Schedule schedule) {}

    /**
     * The learning-rate schedule a run was started with ({@code --burn-in}, {@code --learning-rate} or the cfg's), so a
     * resume continues on it without being told again; null in {@link Resumed} for a checkpoint written before it was
     * kept.
     */
    public record Schedule(int burnIn, float learningRate) {}

    /** The loss scaler's saved state; null in {@link Resumed} for a checkpoint without a state file. */
    public record Scaler(float scale, int cleanSteps, long skipped) {
        public void restoreInto(LossScaler s) { s.restore(scale, cleanSteps, skipped); }
    }

    /** The files of the generation written after {@code iteration}. */
    public record Generation(int iteration, Path momentum, Path weights, Path state) {
        List<Path> files() { return List.of(state, momentum, weights); }
    }

    /** {@code <cfg>_last.weights}: the newest checkpoint's weights, the name a user looks for. */
    public static Path weightsFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.weights");
    }

    /** {@code <cfg>_last.checkpoint}: names the newest generation; replaced atomically once it is complete. */
    public static Path pointerFile(Path out, NetworkSpec spec) {
        return out.resolve(spec.name() + "_last.checkpoint");
    }

    public static Generation generation(Path out, NetworkSpec spec, int iteration) {
        String base = spec.name() + "_ckpt" + iteration;
        return new Generation(iteration, out.resolve(base + ".momentum"), out.resolve(base + ".weights"),
                out.resolve(base + ".state"));
    }

    /** The generation the pointer names, or null when there is no pointer. */
    public static Generation latest(Path out, NetworkSpec spec) {
        Path pointer = pointerFile(out, spec);
        if (!Files.isRegularFile(pointer)) return null;
        return generation(out, spec, (int) number(pointer, load(pointer), "iteration", null));
    }

    /** Writes the trainer's checkpoint as generation {@code trainer.completed()}; see the class comment. */
    public static void write(Path out, NetworkSpec spec, Trainer trainer, long seed, Schedule schedule) {
        int iteration = trainer.completed();
        Generation g = generation(out, spec, iteration);
        try {
            if (Files.deleteIfExists(g.state())) AtomicFile.forceDirectory(out); // uncommitted before it is rewritten
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + g.state() + ": " + e.getMessage(), e);
        }
        MomentumFile.write(g.momentum(), iteration, trainer.backend().optimizerState());
        WeightsFile.write(g.weights(), spec, trainer.backend().weights(trainer.seen()));
        Properties p = new Properties();
        p.setProperty("iteration", String.valueOf(iteration));
        p.setProperty("loss_scale", String.valueOf(trainer.scaler().scale()));
        p.setProperty("clean_steps", String.valueOf(trainer.scaler().cleanSteps()));
        p.setProperty("skipped", String.valueOf(trainer.scaler().skipped()));
        p.setProperty("seed", String.valueOf(seed));
        p.setProperty("burn_in", String.valueOf(schedule.burnIn()));
        p.setProperty("learning_rate", String.valueOf(schedule.learningRate()));
        p.setProperty("momentum", g.momentum().getFileName().toString());
        p.setProperty("weights", g.weights().getFileName().toString());
        AtomicFile.writeString(g.state(), text(p, "argus train checkpoint of iteration " + iteration
                + ": written after its momentum and weights, it commits them"));
        Properties pointer = new Properties();
        pointer.setProperty("iteration", String.valueOf(iteration));
        pointer.setProperty("state", g.state().getFileName().toString());
        AtomicFile.writeString(pointerFile(out, spec), text(pointer, "argus train: the newest complete checkpoint"));
        link(g.weights(), weightsFile(out, spec));
        prune(out, spec, iteration);
    }

    /**
     * Removes the checkpoint files of an earlier run in {@code out} (generations, pointer, the old layout's state and
     * momentum; {@code <cfg>_last.weights} stays until this run's first checkpoint replaces it). Returns the iteration
     * of the checkpoint removed, or -1 when there was none.
     */
    public static int clear(Path out, NetworkSpec spec) {
        int removed = newest(out, spec);
        List<Path> files = new ArrayList<>();
        files.add(pointerFile(out, spec));
        for (int n : generations(out, spec).descendingSet()) files.addAll(generation(out, spec, n).files());
        files.add(OldLayoutCheckpoint.stateFile(out, spec));
        files.add(OldLayoutCheckpoint.momentumFile(out, spec));
        delete(out, files);
        return removed;
    }

    /**
     * The iteration of the newest checkpoint files in {@code out} (the pointer's or any generation's, complete or not),
     * -1 when there are none of this layout; the layout before generations counts as iteration 0 (its state file is
     * not read here).
     */
    public static int newest(Path out, NetworkSpec spec) {
        int newest = -1;
        Generation pointed = Files.isRegularFile(pointerFile(out, spec)) ? safeLatest(out, spec) : null;
        if (pointed != null) newest = pointed.iteration();
        for (int n : generations(out, spec)) newest = Math.max(newest, n);
        if (newest < 0 && (Files.exists(OldLayoutCheckpoint.stateFile(out, spec))
                || Files.exists(OldLayoutCheckpoint.momentumFile(out, spec)))) {
            newest = 0;
        }
        return newest;
    }

    /**
     * Reads the newest complete checkpoint in {@code out} for a resume with batches of {@code batch} images and data
     * seed {@code seed}: the newest generation whose state exists and whose files read and agree, or the layout
     * before generations when there is none.
     *
     * @throws IllegalArgumentException naming the files: when there is no checkpoint, when no generation is whole
     *                                  (each with why), when the seed differs
     */
    public static Resumed read(Path out, NetworkSpec spec, int batch, long seed) {
        TreeSet<Integer> found = generations(out, spec);
        Path pointer = pointerFile(out, spec);
        if (found.isEmpty() && !Files.exists(pointer)) return OldLayoutCheckpoint.read(out, spec, batch, seed);
        int named = -1;
        String pointerProblem = null;
        try {
            Generation g = latest(out, spec);
            if (g != null) named = g.iteration();
            else pointerProblem = "no " + pointer + " (a kill before the first one was written)";
        } catch (RuntimeException e) {
            pointerProblem = e.getMessage();
        }
        List<String> skipped = new ArrayList<>();
        for (int n : found.descendingSet()) {
            Generation g = generation(out, spec, n);
            if (!Files.isRegularFile(g.state())) {
                skipped.add("skipped the checkpoint of iteration " + n + ": " + present(g) + " without "
                        + g.state().getFileName() + ", which is written last: it was cut before it was complete");
                continue;
            }
            Properties state;
            try {
                state = load(g.state());
            } catch (RuntimeException e) {
                skipped.add("skipped the checkpoint of iteration " + n + ": " + e.getMessage());
                continue;
            }
            requireSeed(g.state(), state, seed); // another seed is the user's mistake, not damage: no fallback
            try {
                Resumed r = readGeneration(g, state, spec, batch);
                List<String> notices = new ArrayList<>(skipped);
                String why = n == named ? "named by " + pointer.getFileName()
                        : named < 0 ? "the newest complete one; " + pointerProblem
                        : n > named ? "complete, newer than the " + named + " that " + pointer.getFileName()
                                + " names (a kill before the pointer was replaced)"
                        : "the newest complete one; " + pointer.getFileName() + " names " + named;
                notices.add("resuming from the checkpoint of iteration " + n + " (" + g.state().getFileName() + ", "
                        + why + ")" + describe(r.scaler()) + ", momentum from " + g.momentum().getFileName());
                return new Resumed(r.weights(), r.iteration(), r.scaler(), r.optimizer(), notices, r.schedule());
            } catch (RuntimeException e) {
                skipped.add("skipped the checkpoint of iteration " + n + ": " + e.getMessage());
            }
        }
        if (found.isEmpty()) {
            skipped.add(named >= 0 ? pointer + " names iteration " + named + ", whose files are missing"
                    : pointerProblem + ", and no generation's files");
        }
        throw new IllegalArgumentException("--resume: no complete checkpoint in " + out + ": "
                + String.join("; ", skipped));
    }

    /** One generation whose state exists: its files must read and agree on the iteration. */
    private static Resumed readGeneration(Generation g, Properties state, NetworkSpec spec, int batch) {
        int iteration = (int) number(g.state(), state, "iteration", null);
        if (iteration != g.iteration()) {
            throw new IllegalArgumentException(g.state() + " says iteration " + iteration + ", its name "
                    + g.iteration() + ": a file renamed or copied by hand");
        }
        for (Path f : List.of(g.momentum(), g.weights())) {
            if (!Files.isRegularFile(f)) throw new IllegalArgumentException(g.state() + " commits " + f + ", which "
                    + "does not exist (deleted by hand?)");
        }
        MomentumFile.Saved saved = MomentumFile.read(g.momentum(), spec);
        if (saved.iteration() != iteration) {
            throw new IllegalArgumentException("the checkpoint's files disagree: " + g.state() + " says iteration "
                    + iteration + ", " + g.momentum() + " holds iteration " + saved.iteration());
        }
        ModelWeights weights = WeightsFile.read(g.weights(), spec);
        if (weights.seen() != (long) iteration * batch) {
            throw new IllegalArgumentException("the checkpoint's files disagree: " + g.state() + " says iteration "
                    + iteration + ", " + g.weights() + " holds seen=" + weights.seen() + " (iteration "
                    + weights.seen() / batch + " at batch=" + batch + ")");
        }
        return new Resumed(weights, iteration, scaler(g.state(), state), saved.state(), List.of(), schedule(g.state(), state));
    }

    /** The iterations of the generations in {@code out}, complete or not, by any of their files. */
    static TreeSet<Integer> generations(Path out, NetworkSpec spec) {
        Pattern name = Pattern.compile(Pattern.quote(spec.name() + "_ckpt") + "([0-9]{1,9})\\.(momentum|weights|state)");
        TreeSet<Integer> found = new TreeSet<>();
        if (!Files.isDirectory(out)) return found;
        try (Stream<Path> files = Files.list(out)) {
            files.forEach(f -> {
                Matcher m = name.matcher(f.getFileName().toString());
                if (m.matches()) found.add(Integer.parseInt(m.group(1)));
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + out + ": " + e.getMessage(), e);
        }
        return found;
    }

    /**
     * After generation {@code kept} is committed: removes every other generation but the newest complete one before
     * it (the fallback should {@code kept} ever be damaged), each state first so a kill mid-way leaves it incomplete,
     * never half of a complete one; and the old layout's state and momentum, superseded now.
     */
    private static void prune(Path out, NetworkSpec spec, int kept) {
        Integer fallback = null;
        TreeSet<Integer> all = generations(out, spec);
        for (int n : all.headSet(kept, false).descendingSet()) {
            if (Files.isRegularFile(generation(out, spec, n).state())) {
                fallback = n;
                break;
            }
        }
        List<Path> gone = new ArrayList<>();
        for (int n : all) {
            if (n != kept && (fallback == null || n != fallback)) gone.addAll(generation(out, spec, n).files());
        }
        gone.add(OldLayoutCheckpoint.stateFile(out, spec));
        gone.add(OldLayoutCheckpoint.momentumFile(out, spec));
        delete(out, gone);
    }

    /**
     * Makes {@code link} name the same file as {@code target}: a hard link under a temporary name ({@link AtomicFile}'s
     * pattern, so a kill's leftover is removed at the next start) renamed over it. Where the file system has no hard
     * links, an atomic copy.
     */
    private static void link(Path target, Path link) {
        Path dir = link.toAbsolutePath().getParent();
        Path tmp = dir.resolve("." + link.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.createLink(tmp, target);
            try {
                Files.move(tmp, link, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, link, StandardCopyOption.REPLACE_EXISTING);
            }
            AtomicFile.forceDirectory(dir);
        } catch (IOException | UnsupportedOperationException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // a leftover goes at the next start
            }
            AtomicFile.copy(target, link);
        }
    }

    private static void delete(Path out, List<Path> files) {
        boolean any = false;
        try {
            for (Path f : files) any |= Files.deleteIfExists(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove an old checkpoint file in " + out + ": " + e.getMessage(), e);
        }
        if (any) AtomicFile.forceDirectory(out);
    }

    private static Generation safeLatest(Path out, NetworkSpec spec) {
        try {
            return latest(out, spec);
        } catch (RuntimeException e) {
            return null; // a damaged pointer of an earlier run: removed all the same
        }
    }

    private static String present(Generation g) {
        List<String> names = new ArrayList<>();
        for (Path f : List.of(g.momentum(), g.weights())) if (Files.exists(f)) names.add(f.getFileName().toString());
        return names.isEmpty() ? "nothing" : String.join(" and ", names);
    }

    /** ", loss scale S (C clean steps, K skipped)" for a notice; empty without a scaler. */
    static String describe(Scaler s) {
        if (s == null) return ", initial loss scale";
        return String.format(Locale.ROOT, ", loss scale %s (%d clean steps, %d skipped)", s.scale(), s.cleanSteps(),
                s.skipped());
    }

    static void requireSeed(Path stateFile, Properties state, long seed) {
        long savedSeed = number(stateFile, state, "seed", String.valueOf(seed)); // older states: not recorded
        if (savedSeed != seed) {
            throw new IllegalArgumentException("--seed " + seed + ", but " + stateFile + " was trained with seed "
                    + savedSeed + " (batch k is drawn from the seed and k): pass --seed " + savedSeed);
        }
    }

    static Scaler scaler(Path stateFile, Properties state) {
        String scale = state.getProperty("loss_scale");
        if (scale == null) return null;
        try {
            return new Scaler(Float.parseFloat(scale.trim()), (int) number(stateFile, state, "clean_steps", "0"),
                    number(stateFile, state, "skipped", "0"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(stateFile + ": loss_scale=" + scale.trim() + ", expected a number");
        }
    }

    /** A whole-number property; {@code otherwise} null: required. */
    /** The run's schedule as the state file keeps it; null when it keeps none (written before it was kept). */
    static Schedule schedule(Path stateFile, Properties state) {
        if (state.getProperty("burn_in") == null && state.getProperty("learning_rate") == null) return null;
        long burnIn = number(stateFile, state, "burn_in", null);
        String rate = state.getProperty("learning_rate", "").strip();
        float r;
        try {
            r = Float.parseFloat(rate);
        } catch (NumberFormatException e) {
            r = Float.NaN;
        }
        if (burnIn < 0 || burnIn > Integer.MAX_VALUE || !(r > 0) || !Float.isFinite(r)) {
            throw new IllegalArgumentException(stateFile + ": burn_in=" + state.getProperty("burn_in") + ", learning_rate="
                    + rate + ": expected iterations >= 0 and a rate > 0 (edited by hand?)");
        }
        return new Schedule((int) burnIn, r);
    }

    static long number(Path file, Properties p, String key, String otherwise) {
        String v = p.getProperty(key, otherwise);
        if (v == null) throw new IllegalArgumentException(file + ": no " + key + "=, expected a whole number");
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": " + key + "=" + v.trim() + ", expected a whole number");
        }
    }

    static Properties load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return p;
    }

    private static String text(Properties p, String comment) {
        StringWriter w = new StringWriter();
        try {
            p.store(w, comment);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return w.toString();
    }
}
