package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code argus dataset synth}: whole scenes by default, a share of partial scenes with --partial, clear errors. */
@Budget(seconds = 25)
class DatasetCommandTest {
    @TempDir
    Path tmp;

    @Test
    void writesPartialScenesInTheShareAsked() throws Exception {
        Path whole = tmp.resolve("whole"), mixed = tmp.resolve("mixed");
        DetectCommandTest.Result a = DetectCommandTest.argus("dataset", "synth", "--out", whole.toString(),
                "--count", "8", "--seed", "3");
        DetectCommandTest.Result b = DetectCommandTest.argus("dataset", "synth", "--out", mixed.toString(),
                "--count", "8", "--seed", "3", "--partial", "0.5");
        assertEquals(0, a.code(), a.err());
        assertEquals(0, b.code(), b.err());
        assertTrue(a.out().startsWith("wrote 8 images (5 classes) and "), a.out());
        assertTrue(b.out().startsWith("wrote 8 images (5 classes, 4 of them partial scenes) and "), b.out());
        // every other scene is partial, from the second on; the others are the whole scenes of the same seed
        for (int i = 0; i < 7; i++) {
            Path image = Path.of("images", "train", String.format("%06d.png", i));
            long mismatch = Files.mismatch(whole.resolve(image), mixed.resolve(image));
            if (i % 2 == 0) assertEquals(-1, mismatch, "whole scene " + i);
            else assertNotEquals(-1, mismatch, "partial scene " + i);
        }
    }

    @Test
    void rejectsAShareOutsideZeroToOne() {
        DetectCommandTest.Result r = DetectCommandTest.argus("dataset", "synth", "--out", tmp.resolve("x").toString(),
                "--count", "4", "--partial", "1.5");
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("--partial: expected a share in [0, 1], found 1.5"), r.err());
    }
}
