package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The bounded CPU share of training, cancellation, and the swap rule. */
@Budget(seconds = 5)
class TrainingBudgetTest {
    static final BatchSource EMPTY = () -> new TrainingBatch(new float[0], List.of(), 0);

    static void busy(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    @Test
    void theTrainingThreadSleepsSoThatComputingIsAtMostItsShare() {
        ThrottledBatches b = new ThrottledBatches(EMPTY, 0.25, () -> false);
        b.next();
        for (int i = 0; i < 5; i++) {
            busy(10);
            b.next();
        }
        double busy = b.busyNanos(), slept = b.sleptNanos();
        assertTrue(busy >= 50e6, "computed " + busy / 1e6 + " ms");
        assertEquals(3.0, slept / busy, 1e-6, "a share of 1/4: three times as long asleep as computing");
    }

    @Test
    void aCancelledRunStopsAtTheNextPass() {
        AtomicBoolean cancelled = new AtomicBoolean();
        ThrottledBatches b = new ThrottledBatches(EMPTY, 0.5, cancelled::get);
        b.next();
        cancelled.set(true);
        assertThrows(CancellationException.class, b::next);
    }

    @Test
    void aCandidateIsSwappedInOnlyWhenHeldOutMapDoesNotDrop() {
        assertTrue(SwapDecision.decide(0.80, 0.80, 0, 10).accept());
        assertTrue(SwapDecision.decide(0.80, 0.91, 0, 10).accept());
        SwapDecision worse = SwapDecision.decide(0.80, 0.7999, 0, 10);
        assertFalse(worse.accept());
        assertEquals("held-out mAP@0.5 0.8000 -> 0.7999: worse, the serving version stays", worse.reason());
        assertTrue(SwapDecision.decide(0.80, 0.79, 0.02, 10).accept(), "within a configured tolerance");
        assertFalse(SwapDecision.decide(0, 0, 0, 0).accept(), "no held-out objects: no evidence");
    }
}
