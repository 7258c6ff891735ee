package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.precision.LossScaler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A backend that takes the next pass's batch while a pass computes (as the GPU's does, to stage it) gets every batch
 * once, in order, each pass running on the batch taken for it; nothing is taken after the run's last pass, and a
 * backend that never takes ahead sees the same sequence.
 */
@Budget(seconds = 5)
class TrainerLookaheadTest {
    /** Batch k's first float is k. */
    static final class Numbered implements BatchSource {
        int handed;

        @Override
        public TrainingBatch next() {
            float[] images = {handed++};
            return new TrainingBatch(images, List.of(List.of()), 1);
        }
    }

    /** Records the batches its passes ran on and the ones it was handed ahead. */
    static final class Recording implements TrainingBackend {
        final boolean takeAhead;
        final List<Integer> passes = new ArrayList<>();
        final List<Integer> takenAhead = new ArrayList<>();
        TrainingBatch expectedNext;

        Recording(boolean takeAhead) { this.takeAhead = takeAhead; }

        @Override
        public LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean last, Supplier<TrainingBatch> next) {
            if (expectedNext != null) assertSame(expectedNext, batch, "the pass runs on the batch taken ahead for it");
            passes.add((int) batch.images()[0]);
            expectedNext = null;
            if (takeAhead) {
                TrainingBatch b = next.get();
                if (b != null) {
                    takenAhead.add((int) b.images()[0]);
                    expectedNext = b;
                }
            }
            return LossParts.ZERO;
        }

        @Override public LossParts forwardBackward(TrainingBatch batch, float lossScale) { throw new AssertionError(); }
        @Override public String name() { return "recording"; }
        @Override public String kind() { return "test"; }
        @Override public String precision() { return "fp32"; }
        @Override public NetworkSpec spec() { return null; }
        @Override public int maxBatch() { return 1; }
        @Override public boolean gradientsOverflowed() { return false; }
        @Override public float step(SgdStep step, float lossScale) { return 0; }
        @Override public void discardGradients() {}
        @Override public ModelWeights weights(long seen) { return null; }
        @Override public OptimizerState optimizerState() { return null; }
        @Override public void restoreOptimizerState(OptimizerState state) {}
        @Override public void close() {}
    }

    List<Integer> run(Recording backend, Numbered source) {
        NetworkSpec spec = NetworkSpec.parse(Path.of("t.cfg"), TrainingRunTest.CFG.replace("subdivisions=2",
                "subdivisions=4"), 0, 0);
        TrainingPlan plan = new TrainingPlan(4, 4, 3, 0.9f, 0.0005f, TrainingPlan.of(spec, 3).learningRate(), 0f);
        Trainer t = new Trainer(backend, source, plan, new LossScaler(1f, 1f, 1f, 1000), 0);
        t.run(s -> {});
        return backend.passes;
    }

    @Test
    void everyBatchOnceInOrderAndNothingTakenAfterTheLastPass() {
        Numbered ahead = new Numbered();
        Recording taking = new Recording(true);
        List<Integer> expected = new ArrayList<>();
        for (int k = 0; k < 12; k++) expected.add(k);
        assertEquals(expected, run(taking, ahead), "3 iterations of 4 passes");
        assertEquals(expected.subList(1, 12), taking.takenAhead, "each pass but the last took the next one's batch");
        assertEquals(12, ahead.handed, "no batch taken beyond the run");

        Numbered plain = new Numbered();
        assertEquals(expected, run(new Recording(false), plain), "the same sequence without taking ahead");
        assertEquals(12, plain.handed);
    }
}
