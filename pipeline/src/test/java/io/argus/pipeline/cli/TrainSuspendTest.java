package io.argus.pipeline.cli;

import io.argus.detector.testing.TinyTrainingCfg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.trainer.data.SyntheticScenes;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus train} in a JVM of its own, sent SIGTERM (twice) while it trains: it finishes the iteration in
 * progress, writes its checkpoint, prints {@code argus train: suspended at iteration N (OUT); continue with --resume}
 * and exits with 143 (the JVM's status after SIGTERM). Resumed to iteration N + 10, its weights and momentum files
 * are byte for byte those of a run of N + 10 iterations that never stopped.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 10)
class TrainSuspendTest {
    static final String CFG = TinyTrainingCfg.text(5);
    static final Pattern SUSPENDED = Pattern.compile("argus train: suspended at iteration (\\d+) \\((.*)\\); continue "
            + "with --resume");

    @TempDir
    Path dir;

    @Test
    void sigtermSuspendsAndTheResumedRunEndsBitForBitWhereAnUninterruptedOneDoes() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, CFG);
        Path stopped = dir.resolve("stopped");
        Path straight = dir.resolve("straight");

        // far more iterations than it gets to run, so that the signal surely comes while it trains; the schedule is
        // constant, so max_batches changes nothing but where a run ends
        Process p = new ProcessBuilder(javaCommand(cfg, data, stopped)).redirectErrorStream(true).start();
        // should the signal go unheeded, the run must not train on for hours
        java.util.concurrent.CompletableFuture.delayedExecutor(120, TimeUnit.SECONDS).execute(p::destroyForcibly);
        StringBuilder output = new StringBuilder();
        boolean signalled = false;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
                if (!signalled && line.startsWith("10/")) {
                    // SIGTERM through the handle: Process.destroy() would also close the output we still read
                    p.toHandle().destroy();
                    Pace.holdMillis(20, "a moment before the second signal");
                    p.toHandle().destroy(); // and again, while it finishes: no harm
                    signalled = true;
                }
            }
        } finally {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("argus train did not exit within 60 s of SIGTERM:\n" + output);
            }
        }
        System.out.print("argus train, SIGTERM after iteration 10:\n" + output);
        assertTrue(signalled, "no progress line for iteration 10:\n" + output);
        assertEquals(143, p.exitValue(), output.toString());
        Matcher m = SUSPENDED.matcher(output);
        assertTrue(m.find(), output.toString());
        int at = Integer.parseInt(m.group(1));
        assertEquals(stopped.toString(), m.group(2));
        assertTrue(at >= 10, output.toString());
        assertTrue(output.toString().contains("argus train: stopping after the iteration in progress, then writing the "
                + "checkpoint"), output.toString());
        Properties state = new Properties();
        try (var in = Files.newBufferedReader(stopped.resolve("tiny_last.checkpoint"))) {
            state.load(in);
        }
        assertEquals(String.valueOf(at), state.getProperty("iteration"), "the checkpoint is of the last iteration");

        int end = at + 10;
        assertEquals(0, ArgusCli.run(args(cfg, data, stopped, end, true)));
        assertEquals(0, ArgusCli.run(args(cfg, data, straight, end, false)));
        for (String file : List.of("tiny_last.weights", "tiny_ckpt" + end + ".momentum")) {
            assertEquals(-1, Files.mismatch(straight.resolve(file), stopped.resolve(file)),
                    file + ": suspended at " + at + " and resumed to " + end + " differs from a run that never stopped");
        }
    }

    static String[] args(Path cfg, Path data, Path out, int maxBatches, boolean resume) {
        List<String> a = new java.util.ArrayList<>(List.of("train", "--cfg", cfg.toString(), "--data", data.toString(),
                "--out", out.toString(), "--seed", "1", "--threads", "2", "--max-batches", String.valueOf(maxBatches),
                "--checkpoint-every", "1000000"));
        if (resume) a.add("--resume");
        return a.toArray(String[]::new);
    }

    static List<String> javaCommand(Path cfg, Path data, Path out) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx512m", "-Djava.awt.headless=true",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ArgusCli.class.getName()));
        command.addAll(List.of(args(cfg, data, out, 1_000_000, false)));
        return command;
    }
}
