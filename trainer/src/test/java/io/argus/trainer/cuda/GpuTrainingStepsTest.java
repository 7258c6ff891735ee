package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.Trainer;
import io.argus.trainer.train.TrainingBackend;
import io.argus.trainer.train.TrainingPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A few training iterations (2 passes each: gradients accumulate over subdivisions) on the GPU match the CPU from
 * the same weights on the same batches: the loss of every iteration and the weights at the end. Strict FP32 against
 * the CPU in FP32 (losses to 1e-4, weights to 1e-5). Mixed precision: losses against the CPU emulating FP16 (2e-2);
 * weights against the CPU in FP32, allowed twice the emulation's own drift from FP32 (+1e-3). A batch made resident
 * on the GPU gives the same pass as the same batch uploaded.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuTrainingStepsTest {
    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    static List<TrainingBatch> batches(NetworkSpec spec, int count) {
        List<TrainingBatch> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(GpuTests.batch(spec, 2, 500 + i));
        return out;
    }

    static BatchSource source(List<TrainingBatch> list) {
        return new BatchSource() {
            int k;

            @Override
            public TrainingBatch next() { return list.get(k++ % list.size()); }
        };
    }

    static List<IterationStats> run(TrainingBackend backend, NetworkSpec spec, List<TrainingBatch> data, int iterations) {
        TrainingPlan plan = TrainingPlan.of(spec, iterations);
        LossScaler scaler = new LossScaler(64, 1 << 16, 1f / 1024, 1000);
        List<IterationStats> seen = new ArrayList<>();
        new Trainer(backend, source(data), plan, scaler, 0).run(seen::add);
        return seen;
    }

    @ParameterizedTest
    @EnumSource(Precision.class)
    void iterationsMatchTheCpu(Precision precision) {
        String cfg = GpuLossScalingTest.CFG.replace("learning_rate=0.001", "learning_rate=0.01");
        NetworkSpec spec = GpuTests.spec("steps", cfg);
        ModelWeights w = WeightsInit.darknet(spec, 8);
        List<TrainingBatch> data = batches(spec, 12);
        int iterations = 6;
        List<IterationStats> cpuStats;
        List<IterationStats> gpuStats;
        ModelWeights cpuW;
        ModelWeights gpuW;
        try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, w, 2, 2, precision == Precision.MIXED)) {
            cpuStats = run(cpu, spec, data, iterations);
            cpuW = cpu.weights(0);
        }
        try (CudaTrainingBackend gpu = new CudaTrainingBackend(spec, w, 2, GpuTests.options(precision))) {
            gpuStats = run(gpu, spec, data, iterations);
            gpuW = gpu.weights(0);
        }
        ModelWeights exactW = cpuW;
        if (precision == Precision.MIXED) {
            try (CpuTrainingBackend exact = new CpuTrainingBackend(spec, w, 2, 2, false)) {
                run(exact, spec, data, iterations);
                exactW = exact.weights(0);
            }
        }
        double lossTol = precision == Precision.FP32 ? 1e-4 : 2e-2;
        double weightTol = 1e-5;
        StringBuilder log = new StringBuilder();
        double worstLoss = 0;
        for (int i = 0; i < iterations; i++) {
            double c = cpuStats.get(i).lossPerImage().total();
            double g = gpuStats.get(i).lossPerImage().total();
            worstLoss = Math.max(worstLoss, GpuTests.relative(g, c));
            log.append(String.format(Locale.ROOT, "%s iteration %d: loss cpu %.6f gpu %.6f applied %b/%b%n",
                    precision, i + 1, c, g, cpuStats.get(i).applied(), gpuStats.get(i).applied()));
            assertEquals(cpuStats.get(i).applied(), gpuStats.get(i).applied(), log.toString());
        }
        double worstWeights = drift(gpuW, exactW);
        double emulationDrift = precision == Precision.MIXED ? drift(cpuW, exactW) : 0;
        double allowed = precision == Precision.MIXED ? 2 * emulationDrift + 1e-3 : weightTol;
        log.append(String.format(Locale.ROOT, "%s worst loss rel %.2e, worst weights rel L2 vs FP32 %.2e (emulation "
                + "%.2e, allowed %.2e)%n", precision, worstLoss, worstWeights, emulationDrift, allowed));
        System.out.print(log);
        assertTrue(worstLoss < lossTol, log.toString());
        assertTrue(worstWeights < allowed, log.toString());
    }

    /** The largest relative L2 difference of any layer's weights, biases or rolling mean. */
    static double drift(ModelWeights a, ModelWeights b) {
        return drift(a, b, true);
    }

    /**
     * The same over the trained values: weights, biases and batch-norm scales, and the rolling means only when
     * {@code statistics} (a data-parallel run keeps rank 0's, which saw only its share of the batches).
     */
    static double drift(ModelWeights a, ModelWeights b, boolean statistics) {
        double worst = 0;
        for (int layer : a.layerIndices()) {
            worst = Math.max(worst, GpuTests.relL2(a.conv(layer).weights(), b.conv(layer).weights()));
            worst = Math.max(worst, GpuTests.relL2(a.conv(layer).biases(), b.conv(layer).biases()));
            if (!statistics && a.conv(layer).scales() != null) {
                worst = Math.max(worst, GpuTests.relL2(a.conv(layer).scales(), b.conv(layer).scales()));
            }
            if (statistics && b.conv(layer).mean() != null) {
                worst = Math.max(worst, GpuTests.relL2(a.conv(layer).mean(), b.conv(layer).mean()));
            }
        }
        return worst;
    }

    @ParameterizedTest
    @EnumSource(Precision.class)
    void residentBatchesGiveTheSamePass(Precision precision) {
        NetworkSpec spec = GpuTests.spec("resident", GpuLossScalingTest.CFG);
        TrainingBatch batch = GpuTests.batch(spec, 2, 77);
        try (CudaTrainingBackend gpu = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 1), 2,
                GpuTests.options(precision))) {
            double uploaded = gpu.forwardBackward(batch, 1f).total();
            float[] input = gpu.network().inputImage(1);
            gpu.discardGradients();
            gpu.keepResident(batch);
            TrainingBatch other = GpuTests.batch(spec, 2, 78);
            gpu.forwardBackward(other, 1f);
            gpu.discardGradients();
            double resident = gpu.forwardBackward(batch, 1f).total();
            // the same input to the bit; the loss differs in rounding only: the passes in between moved the rolling
            // means that batch norm's one-pass statistics subtract as their shift
            assertTrue(GpuTests.relative(resident, uploaded) < 1e-4, resident + " vs " + uploaded);
            assertTrue(GpuTests.relL2(gpu.network().inputImage(1), input) == 0);
            assertTrue(gpu.allocatedBytes() > gpu.steadyBytes(), "the resident copy is on the device");
        }
    }
}
