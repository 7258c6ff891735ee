package io.argus.trainer.train;

import io.argus.detector.testing.TinyTrainingCfg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.precision.LossScaler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Emulated mixed precision reproduces real FP16 overflows of scaled gradients, and the trainer with its loss scaler
 * skips those steps, lowers the scale until they fit, then raises it again after clean runs.
 */
@Budget(seconds = 10)
class MixedPrecisionTest {
    static final String CFG = TinyTrainingCfg.text(2, "max_batches=40");

    static NetworkSpec spec() {
        return NetworkSpec.parse(Path.of("mixed.cfg"), CFG, 0, 0);
    }

    /** Random images with a few boxes each; batch k is the same every time. */
    static BatchSource randomBatches(NetworkSpec spec, int images) {
        return new BatchSource() {
            long k;

            @Override
            public TrainingBatch next() {
                SplittableRandom rnd = new SplittableRandom(k++);
                float[] data = new float[images * spec.inputShape().size()];
                for (int i = 0; i < data.length; i++) data[i] = (float) rnd.nextDouble();
                List<List<Truth>> truths = new ArrayList<>();
                for (int i = 0; i < images; i++) {
                    truths.add(List.of(new Truth((float) rnd.nextDouble(0.2, 0.8), (float) rnd.nextDouble(0.2, 0.8),
                            (float) rnd.nextDouble(0.1, 0.5), (float) rnd.nextDouble(0.1, 0.5), rnd.nextInt(2))));
                }
                return new TrainingBatch(data, truths, images);
            }
        };
    }

    @Test
    void scaledGradientsOverflowInHalfPrecisionButNotInSingle() {
        NetworkSpec spec = spec();
        ModelWeights w = WeightsInit.darknet(spec, 3);
        TrainingBatch batch = randomBatches(spec, 2).next();
        float huge = 1 << 24;
        try (CpuTrainingBackend fp16 = new CpuTrainingBackend(spec, w, 2, 2, true);
             CpuTrainingBackend fp32 = new CpuTrainingBackend(spec, w, 2, 2, false)) {
            fp16.forwardBackward(batch, 1f);
            assertFalse(fp16.gradientsOverflowed(), "scale 1 fits FP16");
            fp16.discardGradients();
            fp16.forwardBackward(batch, huge);
            assertTrue(fp16.gradientsOverflowed(), "scale 2^24 overflows FP16 gradients");
            fp32.forwardBackward(batch, huge);
            assertFalse(fp32.gradientsOverflowed(), "the same scale is fine in FP32");
        }
    }

    @Test
    void trainerSkipsOverflowsLowersTheScaleAndRaisesItAgain() {
        NetworkSpec spec = spec();
        TrainingPlan plan = TrainingPlan.of(spec, 40);
        LossScaler scaler = new LossScaler(1 << 24, 1 << 24, 1f / 1024, 4);
        List<IterationStats> seen = new ArrayList<>();
        try (CpuTrainingBackend backend = new CpuTrainingBackend(spec, WeightsInit.darknet(spec, 5), 2, 2, true);
             BatchSource data = randomBatches(spec, 2)) {
            new Trainer(backend, data, plan, scaler, 0).run(seen::add);
            assertEquals(40, seen.size());
            assertFalse(seen.get(0).applied(), "the first step at 2^24 overflows and is skipped");
            long skipped = seen.stream().filter(s -> !s.applied()).count();
            assertEquals(skipped, scaler.skipped());
            assertTrue(skipped >= 2, "skipped " + skipped);
            assertTrue(seen.stream().filter(IterationStats::applied).count() >= 20, "most steps applied after recovery");
            boolean raised = false;
            for (int i = 1; i < seen.size(); i++) raised |= seen.get(i).lossScale() > seen.get(i - 1).lossScale();
            assertTrue(raised, "the scale doubled again after clean steps");
            float fp16Max = 65504f;
            assertTrue(scaler.scale() < (1 << 24) && scaler.scale() * 1e-3f < fp16Max);
            for (float v : backend.weights(0).conv(0).weights()) assertTrue(Float.isFinite(v));
        }
    }
}
