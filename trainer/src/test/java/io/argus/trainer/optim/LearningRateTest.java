package io.argus.trainer.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** Darknet's get_current_rate for burn-in and each supported policy. */
@Budget(seconds = 5)
class LearningRateTest {
    @Test
    void burnInRisesWithThePowerThenStepsScale() {
        LearningRate r = new LearningRate(0.01f, 100, 4, "steps", new int[] {400, 450}, new float[] {0.1f, 0.1f}, 1, 1,
                500);
        assertEquals(0.01 * Math.pow(0.5, 4), r.at(50), 1e-9);
        assertEquals(0.01f, r.at(100), 1e-9);
        assertEquals(0.01f, r.at(399), 1e-9);
        assertEquals(0.001f, r.at(400), 1e-9);
        assertEquals(0.0001f, r.at(450), 1e-9);
    }

    @Test
    void polyExpSigAndConstant() {
        assertEquals(0.01 * Math.pow(0.75, 2), new LearningRate(0.01f, 0, 2, "poly", new int[0], new float[0], 1, 1, 100)
                .at(25), 1e-9);
        assertEquals(0.01 * Math.pow(0.9, 3), new LearningRate(0.01f, 0, 4, "exp", new int[0], new float[0], 0.9f, 1, 0)
                .at(3), 1e-9);
        assertEquals(0.005, new LearningRate(0.01f, 0, 4, "sig", new int[0], new float[0], 0.5f, 10, 0).at(10), 1e-9);
        assertEquals(0.01f, new LearningRate(0.01f, 0, 4, "constant", new int[0], new float[0], 1, 1, 0).at(99999));
    }

    @Test
    void unsupportedPolicyNamesTheKey() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new LearningRate(0.01f, 0, 4, "sgdr", new int[0], new float[0], 1, 1, 10));
        assertEquals("[net] policy=sgdr: not supported for training (expected constant, steps, poly, exp or sig)",
                e.getMessage());
    }
}
