package io.argus.trainer.cuda;

import io.argus.detector.testing.TinyTrainingCfg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.Trainer;
import io.argus.trainer.train.TrainingPlan;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Dynamic loss scaling with real FP16 on the GPU: a scale of 2^24 overflows the FP16 gradients (the check kernel
 * raises its flag) where FP32 does not; the trainer with the CPU's {@link LossScaler} skips those steps, halves the
 * scale until the gradients fit, applies steps again and doubles the scale after clean runs.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuLossScalingTest {
    static final String CFG = TinyTrainingCfg.text(2, "max_batches=40");

    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    static NetworkSpec spec() {
        return GpuTests.spec("scaling", CFG);
    }

    static BatchSource batches(NetworkSpec spec, int n) {
        return new BatchSource() {
            long k;

            @Override
            public TrainingBatch next() {
                return GpuTests.batch(spec, n, 1000 + k++);
            }
        };
    }

    @Test
    void scaledGradientsOverflowInHalfPrecisionButNotInSingle() {
        NetworkSpec spec = spec();
        var w = WeightsInit.darknet(spec, 3);
        TrainingBatch batch = GpuTests.batch(spec, 2, 9);
        float huge = 1 << 24;
        try (CudaTrainingBackend fp16 = new CudaTrainingBackend(spec, w, 2, GpuTests.options(Precision.MIXED));
             CudaTrainingBackend fp32 = new CudaTrainingBackend(spec, w, 2, GpuTests.options(Precision.FP32))) {
            fp16.forwardBackward(batch, 1f);
            assertFalse(fp16.gradientsOverflowed(), "scale 1 fits FP16");
            fp16.discardGradients();
            fp16.forwardBackward(batch, huge);
            assertTrue(fp16.gradientsOverflowed(), "scale 2^24 overflows FP16 gradients");
            fp16.discardGradients();
            assertFalse(fp16.gradientsOverflowed(), "a discard clears the flag");
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
        try (CudaTrainingBackend backend = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 5), 2,
                GpuTests.options(Precision.MIXED));
             BatchSource data = batches(spec, 2)) {
            new Trainer(backend, data, plan, scaler, 0).run(seen::add);
            StringBuilder log = new StringBuilder();
            for (IterationStats s : seen) {
                log.append(s.iteration()).append(": scale ").append(s.lossScale()).append(s.applied() ? "" : " skipped")
                        .append('\n');
            }
            System.out.print(log);
            assertEquals(40, seen.size());
            assertFalse(seen.get(0).applied(), "the first step at 2^24 overflows and is skipped");
            long skipped = seen.stream().filter(s -> !s.applied()).count();
            assertEquals(skipped, scaler.skipped());
            assertTrue(skipped >= 2, "skipped " + skipped);
            assertTrue(seen.stream().filter(IterationStats::applied).count() >= 20, "most steps applied after recovery");
            boolean raised = false;
            for (int i = 1; i < seen.size(); i++) raised |= seen.get(i).lossScale() > seen.get(i - 1).lossScale();
            assertTrue(raised, "the scale doubled again after clean steps:\n" + log);
            for (float v : backend.weights(0).conv(0).weights()) assertTrue(Float.isFinite(v));
        }
    }
}
