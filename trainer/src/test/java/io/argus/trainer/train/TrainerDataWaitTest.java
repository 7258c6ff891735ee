package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.LearningRate;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.precision.LossScaler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The trainer reports the time it waited for data per iteration (all passes), and its smoothed share of the
 * iteration time: near 1 when the data is all the time there is, 0 when batches are ready.
 */
@Budget(seconds = 5)
class TrainerDataWaitTest {
    /** A backend that computes nothing: the iteration's time is the data's. */
    static final class IdleBackend implements TrainingBackend {
        @Override public String name() { return "idle"; }
        @Override public String kind() { return "cpu"; }
        @Override public String precision() { return "fp32"; }
        @Override public NetworkSpec spec() { return null; }
        @Override public int maxBatch() { return 4; }
        @Override public LossParts forwardBackward(TrainingBatch batch, float lossScale) { return LossParts.ZERO; }
        @Override public boolean gradientsOverflowed() { return false; }
        @Override public float step(SgdStep step, float lossScale) { return 0; }
        @Override public void discardGradients() {}
        @Override public ModelWeights weights(long seen) { return null; }
        @Override public io.argus.trainer.optim.OptimizerState optimizerState() { return null; }
        @Override public void restoreOptimizerState(io.argus.trainer.optim.OptimizerState state) {}
        @Override public void close() {}
    }

    /** Each batch takes {@code millis} to make, on the caller's thread, counted as waiting. */
    static BatchSource slowSource(long millis) {
        return new BatchSource() {
            long waited;

            @Override
            public TrainingBatch next() {
                long t0 = System.nanoTime();
                try {
                    Pace.holdMillis(millis, "the making of one batch");
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                waited += System.nanoTime() - t0;
                return new TrainingBatch(new float[0], List.of(List.of()), 1);
            }

            @Override
            public long waitNanos() { return waited; }
        };
    }

    static List<IterationStats> train(BatchSource data, int iterations) {
        LearningRate rate = new LearningRate(0.001f, 0, 1, "constant", new int[0], new float[0], 1, 0, iterations);
        TrainingPlan plan = new TrainingPlan(4, 2, iterations, 0.9f, 0.0005f, rate, 0f);   // two passes per iteration
        Trainer trainer = new Trainer(new IdleBackend(), data, plan, new LossScaler(1, 1, 1, 1000), 0);
        List<IterationStats> seen = new ArrayList<>();
        trainer.run(seen::add);
        assertEquals(trainer.dataWaitSeconds(), seen.stream().mapToDouble(IterationStats::dataWaitSeconds).sum(), 1e-9);
        assertTrue(trainer.dataWaitSeconds() <= trainer.seconds());
        return seen;
    }

    @Test
    void waitingForDataIsReportedPerIterationAndAsAShare() {
        List<IterationStats> slow = train(slowSource(20), 5);
        for (IterationStats s : slow) {
            assertTrue(s.dataWaitSeconds() >= 0.040, "two passes of 20 ms: " + s.dataWaitSeconds());
            assertTrue(s.dataWaitShare() > 0.8 && s.dataWaitShare() <= 1, "share " + s.dataWaitShare());
        }
        List<IterationStats> ready = train(() -> new TrainingBatch(new float[0], List.of(List.of()), 1), 5);
        for (IterationStats s : ready) {
            assertEquals(0, s.dataWaitSeconds());
            assertEquals(0, s.dataWaitShare());
        }
    }
}
