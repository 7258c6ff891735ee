package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import io.argus.trainer.train.TrainingRun;
import org.junit.jupiter.api.Test;

/**
 * {@code argus train --burn-in}: auto (none from --weights, the cfg's otherwise) or a number of iterations; and
 * {@code --learning-rate}, a positive rate.
 */
@Budget(seconds = 5)
class TrainBurnInOptionTest {
    @Test
    void autoOrANumberElseAnErrorNamingTheOption() {
        assertEquals(TrainingRun.AUTO_BURN_IN, TrainCommand.burnIn("auto"));
        assertEquals(TrainingRun.AUTO_BURN_IN, TrainCommand.burnIn("AUTO"));
        assertEquals(0, TrainCommand.burnIn("0"));
        assertEquals(250, TrainCommand.burnIn("250"));
        for (String bad : new String[] {"-1", "soon", ""}) {
            assertEquals("--burn-in: expected auto or a number of iterations >= 0, found " + bad,
                    assertThrows(IllegalArgumentException.class, () -> TrainCommand.burnIn(bad)).getMessage());
        }
        DetectCommandTest.Result r = DetectCommandTest.argus("train", "--cfg", "x.cfg", "--data", "x.data", "--out",
                "o", "--burn-in", "soon");
        assertEquals(2, r.code(), r.err());
        assertEquals("argus train: --burn-in: expected auto or a number of iterations >= 0, found soon", r.err().strip());
        DetectCommandTest.Result rate = DetectCommandTest.argus("train", "--cfg", "x.cfg", "--data", "x.data", "--out",
                "o", "--learning-rate", "-0.01");
        assertEquals(2, rate.code(), rate.err());
        assertEquals("argus train: --learning-rate: expected a rate > 0, found -0.01", rate.err().strip());
    }
}
