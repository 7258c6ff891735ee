package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.optim.SgdStep;
import org.junit.jupiter.api.Test;

/** The CPU backend's contract: accumulation over passes, steps on FP32 masters, skipped steps, EMA weights. */
@Budget(seconds = 5)
class CpuTrainingBackendTest {
    @Test
    void passesAccumulateAndAStepMovesTheMasters() {
        NetworkSpec spec = MixedPrecisionTest.spec();
        ModelWeights initial = WeightsInit.darknet(spec, 4);
        BatchSource data = MixedPrecisionTest.randomBatches(spec, 2);
        TrainingBatch a = data.next();
        try (CpuTrainingBackend one = new CpuTrainingBackend(spec, initial, 2, 2, false);
             CpuTrainingBackend two = new CpuTrainingBackend(spec, initial, 2, 2, false)) {
            // the same batch twice accumulates twice the gradient: with lr/batch halved the step is the same
            one.forwardBackward(a, 1f);
            two.forwardBackward(a, 1f);
            two.forwardBackward(a, 1f);
            float[] before = one.weights(0).conv(0).weights().clone();
            float largest1 = one.step(new SgdStep(0.01f, 0f, 0f, 1, 0f), 1f);
            float largest2 = two.step(new SgdStep(0.01f, 0f, 0f, 2, 0f), 1f);
            assertTrue(largest1 > 0);
            assertEquals(largest1, largest2, 1e-6f * Math.max(1, largest1));
            float[] after = one.weights(0).conv(0).weights();
            assertFalse(java.util.Arrays.equals(before, after), "the step moved the weights");
            assertArrayEquals(after, two.weights(0).conv(0).weights(), 1e-5f);
            // a discarded step leaves the masters alone
            one.forwardBackward(a, 1f);
            one.discardGradients();
            one.step(new SgdStep(0.01f, 0f, 0f, 1, 0f), 1f);
            assertArrayEquals(after, one.weights(0).conv(0).weights(), "no gradient, no momentum: no change");
        }
    }

    @Test
    void emaWeightsAreSavedOnceTheAverageRuns() {
        NetworkSpec spec = MixedPrecisionTest.spec();
        BatchSource data = MixedPrecisionTest.randomBatches(spec, 2);
        try (CpuTrainingBackend b = new CpuTrainingBackend(spec, WeightsInit.darknet(spec, 4), 2, 1, false)) {
            b.forwardBackward(data.next(), 1f);
            b.step(new SgdStep(0.01f, 0.9f, 0.0005f, 2, 0.5f), 1f);
            ConvWeights first = b.weights(0).conv(0);          // EMA started at the weights themselves
            b.forwardBackward(data.next(), 1f);
            b.step(new SgdStep(0.01f, 0.9f, 0.0005f, 2, 0f), 1f);
            float[] masters = b.network().weights(0).conv(0).weights();
            float[] saved = b.weights(0).conv(0).weights();
            assertArrayEquals(first.weights(), saved, "no EMA update asked: the average stays");
            b.forwardBackward(data.next(), 1f);
            b.step(new SgdStep(0.01f, 0.9f, 0.0005f, 2, 0.5f), 1f);
            float[] now = b.network().weights(0).conv(0).weights();
            float[] averaged = b.weights(0).conv(0).weights();
            for (int i = 0; i < now.length; i++) assertEquals(0.5f * first.weights()[i] + 0.5f * now[i], averaged[i], 1e-6f);
            assertFalse(java.util.Arrays.equals(masters, now));
        }
    }
}
