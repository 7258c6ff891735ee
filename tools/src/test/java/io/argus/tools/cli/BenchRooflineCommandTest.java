package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** `argus bench roofline` from the command line: a missing model file is said to be missing, by its path. */
@Budget(seconds = 5)
class BenchRooflineCommandTest {
    @Test
    void aMissingModelIsNamed() {
        ArgusRun.Result r = ArgusRun.argus("bench", "roofline", "--cfg", "/nonexistent.cfg");
        assertEquals(2, r.code(), r.out());
        assertEquals("argus bench roofline: cannot read cfg /nonexistent.cfg: no such file", r.err().strip());
    }

    @Test
    void aNonPositiveBatchIsRefused() {
        ArgusRun.Result r = ArgusRun.argus("bench", "roofline", "--cfg", "../config/models/cfg/yolov4-tiny.cfg",
                "--batch", "0");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("argus bench roofline: "), r.err());
    }
}
