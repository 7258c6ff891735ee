package io.argus.pipeline.safety;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.training.CollectedFrame;
import io.argus.pipeline.training.DatasetStore;
import io.argus.pipeline.training.ModelRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writer side of {@link KillDuringWriteTest}, run as its own JVM and killed with SIGKILL: it opens its data the
 * way the product does at a restart, then calls one real product writer in a tight loop with changing content, and
 * prints {@code COMMIT <what>} after each write returned (what the caller was told is saved). Each case resumes
 * from what is on disk, so every start also exercises the product's reading after a kill.
 *
 * <p>{@code SafetyWriter dataset|label|registry <dir>}
 */
public final class SafetyWriter {
    static final List<String> NAMES = List.of("circle", "square");

    /** Two convolutions, 1.2 MB of weights: long enough a write for kills to land inside it. */
    static final String CFG = """
            [net]
            width=64
            height=64
            channels=3

            [convolutional]
            batch_normalize=1
            filters=64
            size=3
            stride=1
            pad=1
            activation=leaky

            [convolutional]
            filters=512
            size=3
            stride=1
            pad=1
            activation=linear
            """;

    static NetworkSpec spec() { return NetworkSpec.parse(Path.of("safety.cfg"), CFG, 64, 64); }

    /** Checkpoint {@code n}: seen = n and every float = n, so a mix of two checkpoints is visible. */
    static ModelWeights checkpoint(NetworkSpec spec, long n) {
        Map<Integer, ConvWeights> conv = new LinkedHashMap<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            ConvWeights w = ConvWeights.zeros(c);
            for (float[] a : new float[][] {w.biases(), w.scales(), w.mean(), w.variance(), w.weights()}) {
                if (a != null) java.util.Arrays.fill(a, n);
            }
            conv.put(c.index(), w);
        }
        return new ModelWeights(0, 2, 5, n, conv);
    }

    /** Frame {@code n}'s image: its size and every pixel follow from n. */
    static BgrImage image(long n) {
        int w = 48 + (int) (n % 61), h = 32 + (int) (n % 17);
        byte[] px = new byte[w * h * 3];
        for (int i = 0; i < px.length; i++) px[i] = (byte) (i * 31 + n * 7);
        return BgrImage.of(w, h, px);
    }

    /** Labels number {@code k}: k % 5 + 1 boxes whose x follows from k. */
    static List<Detection> labels(long k) {
        List<Detection> out = new ArrayList<>();
        for (int i = 0; i <= k % 5; i++) {
            out.add(new Detection(i % 2, NAMES.get(i % 2), 1f, new Box(1 + (k % 13), 2 + i, 10, 8)));
        }
        return out;
    }

    /** Candidate {@code k}'s weights: 64 KiB and more, every byte following from k. */
    static byte[] candidate(long k) {
        byte[] b = new byte[(64 << 10) + (int) (k % 64) * 1024];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (i * 13 + k * 101);
        return b;
    }

    static DatasetStore openStore(Path dir) { return DatasetStore.open(dir, NAMES, 3, 1_000_000); }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        switch (args[0]) {
            case "dataset" -> {
                DatasetStore store = openStore(dir);
                long n = store.frames().stream().mapToLong(CollectedFrame::frame).max().orElse(0) + 1;
                for (;; n++) {
                    CollectedFrame f = store.add("cam", n, n * 40.0, 1_000_000.0 + n * 1000, image(n), 0.5, "v1",
                            labels(n), labels(n));
                    commit(f.id());
                }
            }
            case "label" -> {
                DatasetStore store = openStore(dir);
                List<CollectedFrame> frames = store.frames();
                long k = frames.stream().mapToLong(f -> (long) f.labeledAt()).max().orElse(0) + 1;
                for (;; k++) {
                    String id = frames.get((int) (k % frames.size())).id();
                    store.label(id, labels(k), "annotation", k); // labeledAt = k: which save a file holds
                    commit(id + " " + k);
                }
            }
            case "registry" -> {
                Path base = dir.resolve("base.weights");
                ModelRegistry r = ModelRegistry.open(dir.resolve("versions"), "sha256:base", base);
                long k = r.active().run() != null ? r.active().run() + 1 : 1;
                Path work = dir.resolve("work");
                Files.createDirectories(work);
                for (;; k++) {
                    Path c = work.resolve("candidate.weights");
                    Files.write(c, candidate(k));
                    ModelRegistry.Version v = r.addCandidate(c, (int) k, 0.5, 0.6, true);
                    r.activated(v.version()); // the swap's commit: this version serves, at a restart too
                    commit(v.version() + " " + k);
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void commit(String what) {
        System.out.println("COMMIT " + what);
        System.out.flush();
    }
}
