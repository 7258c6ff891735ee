package io.argus.pipeline.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.training.CollectedFrame;
import io.argus.pipeline.training.DatasetStore;
import io.argus.pipeline.training.ModelRegistry;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.argus.trainer.data.LabelFile;
import io.argus.trainer.loss.Truth;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 during the writes that hold data: a collected frame ({@code DatasetStore.add}), a label save
 * ({@code DatasetStore.label}) and a model-registry swap ({@code ModelRegistry.addCandidate} + {@code activated}). A {@link SafetyWriter} JVM writes in a loop and is killed
 * (SIGKILL, {@code destroyForcibly}) at a random moment after its first commit, many times over the same directory;
 * after each kill this JVM reads the data back with the product's reader, as a restart does, and checks that every
 * write the writer reported as done is there whole (lost = 0), and that nothing it reads is partial (a file with
 * only part of a write, or a mix of two, read as whole). Training checkpoints are killed the same way, by a real
 * {@code argus train}, in {@code TrainKillResumeTest}.
 *
 * <p>Prints one line per writer: {@code SAFETY <writer> tries=N intact=N partial_read=0 lost=0 commits=C}. Tries:
 * {@code -Dargus.safety.tries} (20); seed: {@code -Dargus.safety.seed}.
 */
@Tag("safety")
@Tag(Tiers.SYSTEM)
@Budget(seconds = 200)
class KillDuringWriteTest {
    /**
     * Kills per writer. Each try costs a JVM start (about 0.7 s on a 2-core machine); 20 random moments in a loop of
     * a few writes each cover every step of it many times over. A longer campaign: {@code -Dargus.safety.tries=200}.
     */
    static final int TRIES = Integer.getInteger("argus.safety.tries", 20);
    static final long SEED = Long.getLong("argus.safety.seed", 17);

    @TempDir
    Path tmp;

    /** What one try found: the commits the writer reported, and problems (empty when all is well). */
    record Check(int commits, int partial, int lost, List<String> problems) {}

    interface Verifier {
        Check verify(Path dir, List<String> commits, Map<String, String> state) throws Exception;
    }

    @Test
    void dataset() throws Exception {
        run("dataset", (dir, commits, state) -> {
            List<String> problems = new ArrayList<>();
            for (String c : commits) state.put("frame:" + c, "committed");
            DatasetStore store = SafetyWriter.openStore(dir);
            int partial = 0, lost = 0;
            for (String key : state.keySet()) {
                String id = key.substring("frame:".length());
                if (store.get(id) == null) {
                    lost++;
                    problems.add("lost: committed frame " + id + " is not in the store");
                }
            }
            for (CollectedFrame f : store.frames()) {
                String bad = frameProblem(store, f, SafetyWriter.labels(f.frame()));
                if (bad != null) {
                    partial++;
                    problems.add("partial: " + bad);
                }
            }
            return new Check(commits.size(), partial, lost, problems);
        });
    }

    @Test
    void label() throws Exception {
        Path dir = tmp.resolve("label");
        DatasetStore setup = SafetyWriter.openStore(dir);
        for (int n = 1; n <= 8; n++) {
            setup.add("cam", n, n * 40.0, 1_000_000.0 + n * 1000, SafetyWriter.image(n), 0.5, "v1", List.of(), null);
        }
        run("label", (d, commits, state) -> {
            List<String> problems = new ArrayList<>();
            for (String c : commits) {
                String[] p = c.split(" ");
                state.merge(p[0], p[1], (a, b) -> Long.parseLong(a) >= Long.parseLong(b) ? a : b);
            }
            DatasetStore store = SafetyWriter.openStore(d);
            int partial = 0, lost = 0;
            for (Map.Entry<String, String> e : state.entrySet()) {
                CollectedFrame f = store.get(e.getKey());
                long acked = Long.parseLong(e.getValue());
                long at = f == null || !f.labeled() ? -1 : (long) f.labeledAt();
                if (at < acked) {
                    lost++;
                    problems.add("lost: " + e.getKey() + " holds label save " + at + ", " + acked + " was committed");
                }
            }
            if (store.size() != 8) {
                lost++;
                problems.add("lost: " + store.size() + " frames, 8 were stored");
            }
            for (CollectedFrame f : store.frames()) {
                if (!f.labeled()) continue;
                String bad = frameProblem(store, f, SafetyWriter.labels((long) f.labeledAt()));
                if (bad != null) {
                    partial++;
                    problems.add("partial: " + bad);
                }
            }
            return new Check(commits.size(), partial, lost, problems);
        }, dir);
    }

    @Test
    void registry() throws Exception {
        Path dir = tmp.resolve("registry");
        Files.createDirectories(dir);
        Files.write(dir.resolve("base.weights"), SafetyWriter.candidate(0));
        run("registry", (d, commits, state) -> {
            List<String> problems = new ArrayList<>();
            for (String c : commits) {
                String[] p = c.split(" ");
                if (Long.parseLong(p[1]) > Long.parseLong(state.getOrDefault("k", "0"))) {
                    state.put("k", p[1]);
                    state.put("version", p[0]);
                }
            }
            ModelRegistry r = ModelRegistry.open(d.resolve("versions"), "sha256:base", d.resolve("base.weights"));
            int partial = 0, lost = 0;
            long acked = Long.parseLong(state.getOrDefault("k", "0"));
            ModelRegistry.Version active = r.active();
            long at = active.run() == null ? 0 : active.run();
            if (at < acked) {
                lost++;
                problems.add("lost: version of run " + at + " serves, " + acked + " (" + state.get("version")
                        + ") was swapped in");
            }
            if (at == acked && acked > 0 && !active.version().equals(state.get("version"))) {
                lost++;
                problems.add("lost: " + active.version() + " serves, " + state.get("version") + " was swapped in");
            }
            ModelRegistry.Version v = active;
            for (int hops = 0; v != null && v.file() != null && v.run() != null && hops < 3; hops++) {
                // the serving weights and what rollback would load: whole, the bytes their version names
                String actual = LoadedModel.fileVersion(v.file());
                if (!v.version().equals(actual) && !v.version().startsWith(actual + "-r")) {
                    partial++;
                    problems.add("partial: " + v.file() + " hashes to " + actual + ", not " + v.version());
                } else if (!java.util.Arrays.equals(Files.readAllBytes(v.file()), SafetyWriter.candidate(v.run()))) {
                    partial++;
                    problems.add("partial: " + v.file() + " is not candidate " + v.run());
                }
                v = v == active ? r.previous() : null;
            }
            return new Check(commits.size(), partial, lost, problems);
        }, dir);
    }

    private void run(String writer, Verifier verifier) throws Exception {
        run(writer, verifier, tmp.resolve(writer));
    }

    /** TRIES rounds of: start the writer, kill it at a random moment after its first commit, verify. */
    private void run(String writer, Verifier verifier, Path dir) throws Exception {
        Files.createDirectories(dir);
        Random random = new Random(SEED ^ writer.hashCode());
        Map<String, String> state = new HashMap<>();
        int intact = 0, partial = 0, lost = 0, commits = 0, tries = 0;
        List<String> problems = new ArrayList<>();
        for (int t = 0; t < TRIES; t++) {
            tries++;
            List<String> out = new ArrayList<>();
            Process p = start(writer, dir);
            Thread reader = drain(p, out);
            Waits.until(() -> !firstCommit(out) || !p.isAlive(), 60_000, 5);
            if (!p.isAlive()) { // it could not resume from what the last kill left: that kill lost the data
                reader.join(10_000);
                List<String> said = snapshot(out);
                lost++;
                problems.add("try " + t + ": lost: the writer cannot start from what is on disk: "
                        + said.stream().filter(l -> !l.startsWith("COMMIT ")).findFirst().orElse("(no output)"));
                break;
            }
            Pace.holdMillis(random.nextInt(400), "a random moment in the loop: in a write, or between two");
            p.destroyForcibly(); // SIGKILL
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000); // a commit line already in the pipe counts: it was reported before the kill
            List<String> c = new ArrayList<>();
            for (String line : snapshot(out)) if (line.startsWith("COMMIT ")) c.add(line.substring(7));
            Check check = verifier.verify(dir, c, state);
            commits += check.commits();
            partial += check.partial();
            lost += check.lost();
            if (check.partial() == 0 && check.lost() == 0 && check.problems().isEmpty()) intact++;
            for (String s : check.problems()) problems.add("try " + t + ": " + s);
        }
        System.out.printf("SAFETY %s tries=%d intact=%d partial_read=%d lost=%d commits=%d%n", writer, tries, intact,
                partial, lost, commits);
        assertEquals(List.of(), problems);
        assertEquals(TRIES, intact);
    }

    private static boolean firstCommit(List<String> out) {
        synchronized (out) {
            return out.stream().noneMatch(l -> l.startsWith("COMMIT "));
        }
    }

    private static List<String> snapshot(List<String> out) {
        synchronized (out) {
            return List.copyOf(out);
        }
    }

    private static Process start(String writer, Path dir) throws Exception {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                SafetyWriter.class.getName(), writer, dir.toString())
                .redirectErrorStream(true).start();
    }

    private static Thread drain(Process p, List<String> out) {
        return io.argus.testkit.ProcessOutput.collect(p, out, "safety-drain");
    }

    /**
     * A frame as the trainer will read it: its image (the PNG decodes to exactly the pixels written) and its label
     * file (the boxes of its description, which must be {@code expected}). Null when whole.
     */
    private static String frameProblem(DatasetStore store, CollectedFrame f, List<io.argus.detector.Detection> expected)
            throws Exception {
        Path image = store.image(f.id());
        BufferedImage read;
        try {
            read = ImageIO.read(image.toFile());
        } catch (Exception e) {
            return image + ": does not decode: " + e;
        }
        if (read == null) return image + ": not an image";
        BufferedImage want = SafetyWriter.image(f.frame()).toBufferedImage();
        if (read.getWidth() != want.getWidth() || read.getHeight() != want.getHeight()) {
            return image + ": " + read.getWidth() + "x" + read.getHeight() + ", frame " + f.frame() + " is "
                    + want.getWidth() + "x" + want.getHeight();
        }
        for (int y = 0; y < want.getHeight(); y++) {
            for (int x = 0; x < want.getWidth(); x++) {
                if (read.getRGB(x, y) != want.getRGB(x, y)) return image + ": pixel " + x + "," + y + " differs";
            }
        }
        if (f.width() != want.getWidth() || f.height() != want.getHeight()) return f.id() + ": description's size differs";
        if (!f.labels().equals(expected)) return f.id() + ": description holds other labels than its save";
        Path labels = LabelFile.forImage(image);
        if (!Files.isRegularFile(labels)) return labels + ": missing for a labelled frame";
        List<Truth> truths = LabelFile.read(labels, SafetyWriter.NAMES.size());
        if (truths.size() != expected.size()) return labels + ": " + truths.size() + " boxes, its description " + expected.size();
        for (int i = 0; i < truths.size(); i++) {
            var b = expected.get(i).box();
            float cx = (b.x() + b.w() / 2) / f.width();
            if (truths.get(i).classId() != expected.get(i).classId() || Math.abs(truths.get(i).x() - cx) > 1e-4) {
                return labels + ": box " + i + " differs from its description";
            }
        }
        return null;
    }

    static long files(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).count();
        }
    }
}
