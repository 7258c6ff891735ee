package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.train.Checkpoint;
import io.argus.trainer.train.MomentumFile;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus train --checkpoint-every 1} in a JVM of its own (the real CLI entry point, a tiny cfg, a tiny synthetic
 * dataset), killed again and again over the same output directory and resumed with {@code --resume} each time. The
 * kills take turns: halted half-way through writing a generation's momentum, its weights, its state, or the pointer
 * ({@code -Dargus.test.haltMidWrite}: the JVM halts, as a kill -9 would leave it), SIGKILL the moment a checkpoint's
 * write shows its temporary file, and SIGKILL at a random instant while it trains and checkpoints. Before each resume
 * this test reads which generations on disk are complete; the resume must take the newest of them (never one older
 * than the last checkpoint a run reported), say so, and restore its momentum (non-zero) and loss scale (those of its
 * state). At the end the runs, resumed once more to a fixed iteration, must hold bit for bit the weights and momentum
 * of a run that was never killed: momentum or loss scale lost or mixed at any of the resumes would show there. Two
 * chains of kills run side by side over their own directories (most of a kill is a JVM's start, one core's work).
 *
 * <p>Prints {@code TRAINKILL kills=N (C chains) halted_mid_write{...} sigkill=N (cut during: ...) resumes=N ...}.
 * Kills: {@code -Dargus.trainKill.kills} (30); seed: {@code -Dargus.safety.seed}.
 */
@Tag("safety")
@Tag(Tiers.SYSTEM)
@Budget(seconds = 65)
class TrainKillResumeTest {
    static final int KILLS = Integer.getInteger("argus.trainKill.kills", 30);
    static final long SEED = Long.getLong("argus.safety.seed", 17);
    /** What each kill cuts, in turn: a file's write (the hook), or a SIGKILL at a random instant. */
    static final List<String> TURNS = List.of("momentum", "weights", "state", "checkpoint", "sigkill in a write",
            "sigkill at random");
    /**
     * The writes of a checkpoint a SIGKILL aims at, as {@link #cutFile} names them (the link of _last.weights lives
     * for microseconds under its temporary name: never seen by a poll).
     */
    static final List<String> WRITES = List.of("momentum", "weights", "state", "checkpoint");
    static final Pattern COMMITTED = Pattern.compile("checkpoint .* at iteration (\\d+)");
    static final Pattern RESUMED = Pattern.compile("argus train: resuming from the checkpoint of iteration (\\d+) "
            + "\\((.*)\\), loss scale ([^ ]+) \\((\\d+) clean steps, (\\d+) skipped\\), momentum from (.*)");
    static final Pattern HALTED = Pattern.compile("HALT mid-write of (\\S+) .*");
    /** A temporary file of AtomicFile or of the pointer's link, by the file it was to become. */
    static final Pattern LEFTOVER = Pattern.compile("\\.tiny_(ckpt\\d+\\.(momentum|weights|state)|last\\.(checkpoint|weights))"
            + ".*\\.tmp");

    @TempDir
    Path dir;

    /** A complete generation as this test reads it before a resume. */
    record Complete(int iteration, double largestMomentum, Properties state) {}

    /** What one chain of kills over one directory saw. */
    static final class Tally {
        final Map<String, Integer> halted = new TreeMap<>();
        final Map<String, Integer> cutDuring = new TreeMap<>();
        final List<String> problems = new ArrayList<>();
        int kills, resumes, fromReported, newerThanReported, pastPointer, skippedNotices;
        /** The newest checkpoint a run reported as written. */
        int reported;

        void add(Tally t) {
            t.halted.forEach((k, v) -> halted.merge(k, v, Integer::sum));
            t.cutDuring.forEach((k, v) -> cutDuring.merge(k, v, Integer::sum));
            problems.addAll(t.problems);
            kills += t.kills;
            resumes += t.resumes;
            fromReported += t.fromReported;
            newerThanReported += t.newerThanReported;
            pastPointer += t.pastPointer;
            skippedNotices += t.skippedNotices;
            reported = Math.max(reported, t.reported);
        }
    }

    @Test
    void killedAtAnyInstantItResumesFromTheNewestCompleteGenerationWithItsMomentumAndLossScale() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, TrainSuspendTest.CFG);
        NetworkSpec spec = NetworkSpec.load(cfg);
        // two chains of kills side by side, each over its own directory: most of a kill is a JVM's start, one core's
        int chains = Math.min(2, Math.max(1, KILLS / TURNS.size()));
        List<Path> outs = new ArrayList<>();
        Tally all = new Tally();
        try (ExecutorService pool = Executors.newFixedThreadPool(chains)) {
            List<Future<Tally>> running = new ArrayList<>();
            for (int c = 0; c < chains; c++) {
                Path out = dir.resolve("killed-" + c);
                outs.add(out);
                int kills = KILLS / chains + (c < KILLS % chains ? 1 : 0);
                int first = c * TURNS.size() / chains; // the chains take the turns in different phases
                long seed = SEED + c;
                running.add(pool.submit(() -> chain(out, kills, first, seed, cfg, data, spec)));
            }
            for (Future<Tally> t : running) all.add(t.get(10, TimeUnit.MINUTES));
        }
        assertEquals(List.of(), all.problems);

        // the last resumes run to the end undisturbed; a run that was never killed must end bit for bit the same,
        // all in JVMs started as the killed ones were (the same compilers), side by side
        int end = all.reported + 3;
        for (Path out : outs) end = Math.max(end, newestComplete(out, spec) + 3);
        Path straight = dir.resolve("straight");
        List<Process> finals = new ArrayList<>();
        for (Path run : outs) finals.add(new ProcessBuilder(command(List.of(), cfg, data, run, end, true))
                .redirectErrorStream(true).start());
        finals.add(new ProcessBuilder(command(List.of(), cfg, data, straight, end, false)).redirectErrorStream(true)
                .start());
        for (Process p : finals) {
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), said);
            assertEquals(0, p.exitValue(), said);
        }
        for (Path out : outs) {
            for (String file : List.of("tiny_last.weights", "tiny_ckpt" + end + ".momentum")) {
                assertEquals(-1, Files.mismatch(straight.resolve(file), out.resolve(file)), out.getFileName() + "/"
                        + file + ": killed and resumed to " + end + " differs from a run that was never killed");
            }
        }
        System.out.printf("TRAINKILL kills=%d (%d chains) halted_mid_write%s sigkill=%d (cut during: %s) resumes=%d "
                        + "resumed_from{last_reported=%d, newer_than_reported=%d, of_those_newer_than_pointer=%d} "
                        + "skipped_incomplete_notices=%d final_iteration=%d bit_for_bit=true%n", all.kills, chains,
                all.halted, all.cutDuring.values().stream().mapToInt(Integer::intValue).sum(), all.cutDuring,
                all.resumes, all.fromReported, all.newerThanReported, all.pastPointer, all.skippedNotices, end);
        assertEquals(KILLS, all.kills);
        assertEquals(KILLS - chains, all.resumes);
        if (KILLS >= TURNS.size()) {
            for (String turn : TURNS) {
                if (!turn.startsWith("sigkill")) assertTrue(all.halted.getOrDefault(turn, 0) > 0, turn);
            }
        }
    }

    /**
     * {@code kills} rounds over {@code out} of: read which generations are complete, start argus train (resuming
     * after the first), kill it as the turn says, check the resume it made.
     */
    static Tally chain(Path out, int kills, int firstTurn, long seed, Path cfg, Path data, NetworkSpec spec) {
        Tally t = new Tally();
        Random random = new Random(seed);
        try {
            for (int k = 0; k < kills && t.problems.isEmpty(); k++) {
                kill(t, out, k, TURNS.get((firstTurn + k) % TURNS.size()), random, cfg, data, spec);
            }
        } catch (Exception e) {
            t.problems.add(out.getFileName() + ": " + e);
        }
        return t;
    }

    private static void kill(Tally t, Path out, int k, String turn, Random random, Path cfg, Path data,
                             NetworkSpec spec) throws Exception {
        String at = out.getFileName() + " kill " + k + " (" + turn + ")";
        Map<Integer, Complete> complete = k == 0 ? Map.of() : complete(out, spec);
        int newest = complete.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        if (k > 0 && newest < t.reported) {
            t.problems.add(at + ": the newest complete generation is " + newest + ", but " + t.reported
                    + " was reported written");
        }
        List<String> jvm = new ArrayList<>();
        if (!turn.startsWith("sigkill")) {
            String file = turn.equals("checkpoint") ? "tiny_last\\.checkpoint" : "tiny_ckpt\\d+\\." + turn;
            jvm.add("-Dargus.test.haltMidWrite=" + (1 + random.nextInt(2)) + ":" + file);
        }
        List<String> output = new ArrayList<>();
        Process p = new ProcessBuilder(command(jvm, cfg, data, out, 1_000_000, k > 0)).redirectErrorStream(true)
                .start();
        Thread reader = drain(p, output);
        if (turn.startsWith("sigkill")) {
            Waits.until(() -> committed(output) > 0 || !p.isAlive(), 60_000, 2); // it trains and checkpoints
            if (turn.equals("sigkill in a write")) {
                // the moment a write of the file picked shows its temporary file (it may finish before the signal)
                String file = WRITES.get(random.nextInt(WRITES.size()));
                Waits.until(() -> file.equals(cutFile(out)) || !p.isAlive(), 3_000, 1); // else at 3 s, wherever
            } else {
                Pace.holdMillis(random.nextInt(300), "a random instant while it trains and checkpoints");
            }
            p.destroyForcibly();
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            t.problems.add(at + ": the run did not halt within 60 s");
        }
        reader.join(10_000);
        List<String> said = snapshot(output);
        if (p.exitValue() != 137) {
            t.problems.add(at + ": exit " + p.exitValue() + ", expected 137 (killed):\n" + String.join("\n", said));
            return;
        }
        t.kills++;
        if (turn.startsWith("sigkill")) {
            String cut = cutFile(out);
            t.cutDuring.merge(cut == null ? "between writes" : cut, 1, Integer::sum);
        } else if (said.stream().noneMatch(l -> HALTED.matcher(l).matches())) {
            t.problems.add(at + ": no HALT line:\n" + String.join("\n", said));
        } else {
            t.halted.merge(turn, 1, Integer::sum);
        }
        int committed = committed(said);
        if (k > 0) {
            t.resumes++;
            Matcher m = said.stream().map(RESUMED::matcher).filter(Matcher::matches).findFirst().orElse(null);
            t.skippedNotices += (int) said.stream().filter(l -> l.contains("skipped the checkpoint of")).count();
            if (m == null) {
                t.problems.add(at + ": no resume line:\n" + String.join("\n", said));
                return;
            }
            int from = Integer.parseInt(m.group(1));
            if (from != newest) t.problems.add(at + ": resumed from " + from + ", the newest complete is " + newest);
            if (from < t.reported) {
                t.problems.add(at + ": resumed from " + from + ", " + t.reported + " was reported written: the "
                        + "iteration went back past a complete generation");
            }
            if (from == t.reported) t.fromReported++;
            else t.newerThanReported++;
            if (m.group(2).startsWith("tiny_ckpt" + from + ".state, complete, newer than")) t.pastPointer++;
            Complete c = complete.get(from);
            if (c == null) {
                t.problems.add(at + ": resumed from " + from + ", which was not complete on disk");
                return;
            }
            if (!(c.largestMomentum() > 0)) t.problems.add(at + ": generation " + from + " has zero momentum");
            for (String[] kv : new String[][] {{"loss_scale", m.group(3)}, {"clean_steps", m.group(4)},
                    {"skipped", m.group(5)}}) {
                if (!c.state().getProperty(kv[0]).equals(kv[1])) {
                    t.problems.add(at + ": resumed with " + kv[0] + " " + kv[1] + ", generation " + from
                            + " saved " + c.state().getProperty(kv[0]));
                }
            }
            if (!m.group(6).equals("tiny_ckpt" + from + ".momentum")) {
                t.problems.add(at + ": momentum from " + m.group(6) + " for generation " + from);
            }
        }
        t.reported = Math.max(t.reported, committed);
    }

    /**
     * The generations on disk that are complete, read as a resume would need them: a state, momentum of its
     * iteration that reads (CRC, tensors), weights of its iteration.
     */
    static Map<Integer, Complete> complete(Path out, NetworkSpec spec) throws Exception {
        Map<Integer, Complete> found = new TreeMap<>();
        Pattern state = Pattern.compile("tiny_ckpt(\\d+)\\.state");
        List<Path> states;
        try (Stream<Path> files = Files.list(out)) {
            states = files.filter(f -> state.matcher(f.getFileName().toString()).matches()).toList();
        }
        for (Path s : states) {
            Matcher m = state.matcher(s.getFileName().toString());
            m.matches();
            int n = Integer.parseInt(m.group(1));
            Checkpoint.Generation g = Checkpoint.generation(out, spec, n);
            try {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(s)) {
                    p.load(r);
                }
                MomentumFile.Saved saved = MomentumFile.read(g.momentum(), spec);
                long seen = WeightsFile.read(g.weights(), spec).seen();
                if (saved.iteration() != n || seen != (long) n * spec.net().batch()
                        || !p.getProperty("iteration").equals(String.valueOf(n))) {
                    continue;
                }
                double largest = 0;
                for (OptimizerState.Tensor t : saved.state().tensors()) {
                    for (float v : t.momentum()) largest = Math.max(largest, Math.abs(v));
                }
                found.put(n, new Complete(n, largest, p));
            } catch (RuntimeException e) {
                // not complete: a resume must not take it
            }
        }
        return found;
    }

    static int newestComplete(Path out, NetworkSpec spec) throws Exception {
        return complete(out, spec).keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** Which write a SIGKILL cut, by the temporary file it left; null when none. */
    static String cutFile(Path out) throws java.io.IOException {
        try (Stream<Path> files = Files.list(out)) {
            return files.map(f -> LEFTOVER.matcher(f.getFileName().toString())).filter(Matcher::matches)
                    .map(m -> m.group(2) != null ? m.group(2) : m.group(3).equals("weights") ? "last.weights link"
                            : m.group(3))
                    .findFirst().orElse(null);
        }
    }

    static int committed(List<String> output) {
        int last = 0;
        for (String line : snapshot(output)) {
            Matcher m = COMMITTED.matcher(line);
            if (m.matches()) last = Math.max(last, Integer.parseInt(m.group(1)));
        }
        return last;
    }

    static String[] args(Path cfg, Path data, Path out, int maxBatches, boolean resume) {
        List<String> a = new ArrayList<>(List.of("train", "--cfg", cfg.toString(), "--data", data.toString(),
                "--out", out.toString(), "--seed", "1", "--threads", "1", "--loader-threads", "1", "--precision",
                "fp16", "--max-batches", String.valueOf(maxBatches), "--checkpoint-every", "1"));
        if (resume) a.add("--resume");
        return a.toArray(String[]::new);
    }

    /** A JVM that starts fast (C1 only, a small serial heap): most of a kill's time is this start. */
    static List<String> command(List<String> properties, Path cfg, Path data, Path out, int maxBatches,
                                boolean resume) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Xss1m", "-Djava.awt.headless=true", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(properties);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ArgusCli.class.getName()));
        command.addAll(List.of(args(cfg, data, out, maxBatches, resume)));
        return command;
    }

    static Thread drain(Process p, List<String> out) {
        return io.argus.testkit.ProcessOutput.collect(p, out, "train-kill-drain");
    }

    static List<String> snapshot(List<String> out) {
        synchronized (out) {
            return List.copyOf(out);
        }
    }
}
