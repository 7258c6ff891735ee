package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus train --multi-scale}: by default the cfg's random=1 trains at several sizes and says each (a run this
 * short is all in Darknet's last 100 iterations, so all at the largest, 128 for a 64 input); off trains at the cfg's
 * size and says nothing of it; anything but off, on, cfg is refused naming the option.
 */
@Budget(seconds = 5)
class TrainMultiScaleOptionTest {
    @TempDir
    Path dir;

    @Test
    void theCfgsRandomByDefaultOffOnRequest() throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 6, 3, 96, 0.25);
        Path cfg = dir.resolve("ms.cfg");
        Files.writeString(cfg, TinyTrainingCfg.text(5).replace("width=32", "width=64").replace("height=32", "height=64")
                + "random=1\n");
        DetectCommandTest.Result on = train(cfg, data, dir.resolve("on"));
        assertEquals(0, on.code(), on.err());
        List<String> sizes = on.out().lines().filter(l -> l.startsWith("multi-scale:")).toList();
        assertEquals(List.of("multi-scale: iteration 1 input 128x128", "multi-scale: iteration 11 input 128x128"), sizes,
                on.out());
        assertTrue(on.out().contains("multi-scale every 10 iterations (x1/1.40..x1.40 of 64x64): 1 size [128x128], "
                + "a network made for each, the largest 128x128"), on.out());

        DetectCommandTest.Result off = train(cfg, data, dir.resolve("off"), "--multi-scale", "off");
        assertEquals(0, off.code(), off.err());
        assertFalse(off.out().contains("multi-scale"), off.out());

        DetectCommandTest.Result bad = train(cfg, data, dir.resolve("bad"), "--multi-scale", "yes");
        assertEquals(2, bad.code(), bad.err());
        assertEquals("argus train: --multi-scale: expected off, on or cfg, found yes", bad.err().strip());
    }

    static DetectCommandTest.Result train(Path cfg, Path data, Path out, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("train", "--cfg", cfg.toString(), "--data",
                data.toString(), "--out", out.toString(), "--threads", "2", "--max-batches", "12"));
        args.addAll(List.of(more));
        return DetectCommandTest.argus(args.toArray(String[]::new));
    }
}
