package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus train} without {@code --resume} into a directory that holds an earlier run's checkpoint refuses to
 * start (a forgotten {@code --resume} would otherwise delete it), naming the three ways on; the files stay. Refused
 * before any data is read, so it takes well under a second.
 */
@Budget(seconds = 5)
class TrainRefusesToOverwriteTest {
    @TempDir
    Path dir;

    @Test
    void aFreshStartOverAnEarlierRunsCheckpointIsRefusedAndTheFilesStay() throws Exception {
        Path cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, TinyTrainingCfg.text(2));
        Path out = Files.createDirectories(dir.resolve("out"));
        Path earlier = Files.writeString(out.resolve("tiny_ckpt7.state"), "an earlier run's\n");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = ArgusCli.run("train", "--cfg", cfg.toString(), "--data", dir.resolve("none.data").toString(),
                    "--out", out.toString(), "--backend", "cpu");
        } finally {
            System.setErr(err);
        }
        String said = captured.toString(StandardCharsets.UTF_8);
        assertEquals(2, code, said);
        assertTrue(said.contains("--out " + out + " holds the checkpoint of an earlier run of tiny (iteration 7): add "
                + "--resume to continue it, --discard-checkpoints to start afresh and delete it, or choose another --out"),
                said);
        assertTrue(Files.exists(earlier), "the earlier run's file stays");
        assertEquals(2, ArgusCli.run("train", "--cfg", cfg.toString(), "--data", "x", "--out", out.toString(),
                "--resume", "--discard-checkpoints"), "the two exclude each other");
    }
}
