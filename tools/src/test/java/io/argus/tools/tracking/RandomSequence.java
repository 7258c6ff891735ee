package io.argus.tools.tracking;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A random small sequence, scored independently: 3 objects over 55 frames and a noisy tracker (misses, boxes off by
 * up to 20 px, ids swapped between objects, false boxes), in src/test/resources/tracking-eval. The expected figures
 * come from the eval_sequence functions of TrackEval's CLEAR, Identity and HOTA (JonathonLuiten/TrackEval,
 * trackeval/metrics/*.py), copied into a NumPy/SciPy script and run on these two files without preprocessing (no
 * classes, every box scored).
 */
final class RandomSequence {
    private RandomSequence() {}

    static MotSequence load() {
        return MotSequence.of(rows("random-gt.txt"), rows("random-results.txt"));
    }

    private static List<MotRow> rows(String name) {
        try (InputStream in = RandomSequence.class.getResourceAsStream("/tracking-eval/" + name)) {
            if (in == null) throw new IllegalStateException("missing test resource tracking-eval/" + name);
            return MotFile.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList(), name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
