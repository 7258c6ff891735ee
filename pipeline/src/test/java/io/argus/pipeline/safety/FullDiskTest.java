package io.argus.pipeline.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.training.CollectedFrame;
import io.argus.pipeline.training.DatasetStore;
import io.argus.pipeline.training.ModelRegistry;
import io.argus.testkit.Budget;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data dir's disk fills up (a 4 MiB tmpfs): each writer that keeps data fails with an error that names the file
 * it could not write and says why (the kernel's "No space left on device"), the last committed version reads back
 * whole, no temporary file is left holding the space, and once space is freed the same write succeeds. Five rounds
 * per writer, each with a new committed version first.
 *
 * <p>Prints {@code SAFETY full-disk-<writer> tries=5 clear_error=5 intact=5 partial_read=0 lost=0 temp_left=0}.
 */
@Tag("safety")
@Budget(seconds = 5)
class FullDiskTest {
    static final int TRIES = 5;

    @TempDir
    Path tmp;

    /** One round: what failed to write, how, and what was read back. */
    private record Round(String message, boolean intact) {}

    @Test
    void checkpoint() throws Exception {
        NetworkSpec spec = SafetyWriter.spec();
        rounds("checkpoint", (disk, t) -> {
            Path file = disk.dir.resolve("safety_last.weights");
            WeightsFile.write(file, spec, SafetyWriter.checkpoint(spec, 2L * t + 1)); // committed
            return full(disk, file, () -> {
                WeightsFile.write(file, spec, SafetyWriter.checkpoint(spec, 2L * t + 2));
                return file;
            }, () -> {
                var w = WeightsFile.read(file, spec);
                return w.seen() == 2L * t + 1 && w.conv(0).biases()[0] == 2f * t + 1;
            });
        });
    }

    @Test
    void dataset() throws Exception {
        rounds("dataset", (disk, t) -> {
            DatasetStore store = SafetyWriter.openStore(disk.dir);
            long n = 100L * (t + 1);
            CollectedFrame kept = store.add("cam", n, 0, 1_000_000.0 + n * 1000, SafetyWriter.image(n), 0.5, "v1",
                    SafetyWriter.labels(n), SafetyWriter.labels(n));
            int before = store.size();
            return full(disk, store.image("cam-" + Math.round(1_000_000.0 + (n + 1) * 1000)), () -> store.add("cam",
                    n + 1, 0, 1_000_000.0 + (n + 1) * 1000, SafetyWriter.image(n + 1), 0.5, "v1",
                    SafetyWriter.labels(n + 1), SafetyWriter.labels(n + 1)), () -> {
                DatasetStore again = SafetyWriter.openStore(disk.dir);
                return again.size() == before && again.get(kept.id()) != null
                        && again.get(kept.id()).labels().equals(SafetyWriter.labels(n))
                        && javax.imageio.ImageIO.read(again.image(kept.id()).toFile()) != null;
            });
        });
    }

    @Test
    void label() throws Exception {
        rounds("label", (disk, t) -> {
            DatasetStore store = SafetyWriter.openStore(disk.dir);
            if (store.size() == 0) {
                store.add("cam", 1, 0, 1_000_000.0, SafetyWriter.image(1), 0.5, "v1", List.of(), null);
            }
            String id = store.frames().get(0).id();
            long k = 10L * (t + 1);
            store.label(id, SafetyWriter.labels(k), "annotation", k); // committed
            return full(disk, labelFile(store, id), () -> store.label(id, SafetyWriter.labels(k + 1), "annotation", k + 1),
                    () -> {
                        DatasetStore again = SafetyWriter.openStore(disk.dir);
                        CollectedFrame f = again.get(id);
                        // the store that failed says what is on disk too (the failed save is not in memory)
                        return (long) store.get(id).labeledAt() == k && f.labeledAt() == k
                                && f.labels().equals(SafetyWriter.labels(k))
                                && Files.readAllLines(labelFile(again, id)).size() == SafetyWriter.labels(k).size();
                    });
        });
    }

    @Test
    void registry() throws Exception {
        rounds("registry", (disk, t) -> {
            Path base = disk.dir.resolve("base.weights");
            if (!Files.exists(base)) Files.write(base, SafetyWriter.candidate(0));
            ModelRegistry r = ModelRegistry.open(disk.dir.resolve("versions"), "sha256:base", base);
            Path c = tmp.resolve("candidate.weights"); // outside the full disk, as a fine-tune's work dir may be
            Files.write(c, SafetyWriter.candidate(2L * t + 1));
            ModelRegistry.Version v = r.addCandidate(c, 2 * t + 1, 0.5, 0.6, true);
            r.activated(v.version()); // committed
            Files.write(c, SafetyWriter.candidate(2L * t + 2));
            String next = LoadedModel.fileVersion(c);
            Round round = full(disk, r.dir().resolve((v.number() + 1) + "-" + next.replace("sha256:", "") + ".weights"),
                    () -> r.addCandidate(c, 2 * t + 2, 0.5, 0.6, true), () -> {
                        ModelRegistry again = ModelRegistry.open(disk.dir.resolve("versions"), "sha256:base", base);
                        return again.active().version().equals(v.version())
                                && LoadedModel.fileVersion(again.active().file()).equals(v.version());
                    });
            assertEquals(v.version(), r.active().version());
            return round;
        });
    }

    @FunctionalInterface
    private interface Work<T> {
        T get() throws Exception;
    }

    @FunctionalInterface
    private interface RoundBody {
        Round run(Tmpfs disk, int t) throws Exception;
    }

    private void rounds(String writer, RoundBody body) throws Exception {
        int clear = 0, intact = 0, partial = 0, lost = 0;
        long temps = 0;
        List<String> messages = new ArrayList<>();
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("disk"), "4m")) {
            for (int t = 0; t < TRIES; t++) {
                Round r = body.run(disk, t);
                messages.add(r.message());
                clear++;
                if (r.intact()) intact++;
                else lost++;
                temps += temporaries(disk.dir);
            }
        }
        System.out.printf("SAFETY full-disk-%s tries=%d clear_error=%d intact=%d partial_read=%d lost=%d temp_left=%d%n",
                writer, TRIES, clear, intact, partial, lost, temps);
        System.out.println("SAFETY full-disk-" + writer + " error: " + messages.get(0));
        assertEquals(TRIES, intact);
        assertEquals(0, temps);
    }

    /**
     * Fills the disk, runs {@code write} (which must fail naming {@code file} and the full disk), checks the
     * committed data with {@code committed}, frees the space and runs {@code write} again, which must succeed.
     */
    private static <T> Round full(Tmpfs disk, Path file, Work<T> write, Work<Boolean> committed) throws Exception {
        Path filler = disk.dir.resolve("filler");
        disk.fill(filler);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, write::get);
        String m = e.getMessage();
        assertTrue(m.contains(file.toString()) && m.contains("No space left on device"),
                "the error names the file and the full disk: " + m);
        boolean intact = committed.get();
        Files.delete(filler);
        assertNotNull(write.get(), "with space again the write succeeds");
        return new Round(m, intact);
    }

    private static Path labelFile(DatasetStore store, String id) {
        return io.argus.trainer.data.LabelFile.forImage(store.image(id));
    }

    private static long temporaries(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
        }
    }
}
