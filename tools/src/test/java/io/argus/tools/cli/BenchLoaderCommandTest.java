package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `argus bench loader` is routed past bench's own options, times the loader on a pack per thread count (one
 * {@code argus-loader} line each), and a corrupt image stops it with a message naming the file.
 */
@Budget(seconds = 5)
class BenchLoaderCommandTest {
    @TempDir
    Path dir;

    @Test
    void timesTheLoaderPerThreadCountOnAPack() {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 3, 96, 0.25);
        ArgusRun.Result pack = ArgusRun.argus("dataset", "pack", "--data", data.toString(), "--out",
                dir.resolve("pack").toString());
        assertEquals(0, pack.code(), pack.err());
        ArgusRun.Result r = ArgusRun.argus("bench", "loader", "--data",
                dir.resolve("pack/packed.data").toString(), "--width", "64", "--height", "64", "--batch", "4",
                "--threads", "1,2", "--seconds", "0.2", "--warmup", "0");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().filter(l -> l.startsWith("argus-loader ")).toList();
        assertEquals(2, lines.size(), r.out());
        assertTrue(lines.get(0).contains(" packed=true batch=4 input=64x64 threads=1 depth=3 "), lines.get(0));
        assertTrue(lines.get(1).contains(" threads=2 "), lines.get(1));
        for (String l : lines) assertTrue(l.matches(".* images/s=[0-9]+\\.[0-9] .*"), l);
    }

    @Test
    void aCorruptImageIsNamed() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 4, 3, 96, 0.25);
        Path list = Files.readAllLines(data).stream().filter(l -> l.startsWith("train=")).map(l -> data.resolveSibling(
                l.substring(6))).findFirst().orElseThrow();
        Path bad = dir.resolve("synth/bad.png");
        Files.write(bad, new byte[] {1, 2, 3, 4, 5});
        Files.writeString(list, "bad.png\n");
        ArgusRun.Result r = ArgusRun.argus("bench", "loader", "--data", data.toString(), "--width",
                "64", "--height", "64", "--batch", "2", "--threads", "2", "--seconds", "0.2", "--warmup", "0");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("argus bench loader: " + bad + ": not a readable image (expected JPEG, PNG or "
                + "BMP) (training batch 0, image "), r.err());
    }
}
