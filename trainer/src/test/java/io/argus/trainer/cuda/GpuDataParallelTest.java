package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.NcclClique;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.parallel.RankThreads;
import io.argus.trainer.train.TrainingRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Data-parallel training over NCCL on two GPUs (skipped with fewer): two ranks that each make one pass and sum their
 * gradients in buckets during the backward pass take the step one GPU takes after making both passes (the same
 * images), every rank holding the same bits afterwards; an overflow on one rank skips the step on both; a run
 * suspended on two GPUs and resumed on one (and on four, where there are four) ends as close to an uninterrupted run
 * as two uninterrupted runs are to each other.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuDataParallelTest {
    static final int ITERATIONS = 8;
    static final String CFG = GpuLossScalingTest.CFG.replace("classes=2", "classes=5").replace("filters=21",
            "filters=30").replace("batch=4", "batch=8").replace("subdivisions=2", "subdivisions=4");

    @TempDir
    Path dir;

    @BeforeAll
    static void needsTwoGpus() {
        GpuTests.assumeGpu();
        assumeTrue(CudaRuntime.deviceCount() >= 2, "needs 2 GPUs, this host has " + CudaRuntime.deviceCount());
    }

    /** Worst relative L2 over the trained values (weights, biases, scales): the rolling statistics are rank 0's. */
    static double trainedDrift(ModelWeights a, ModelWeights b) {
        return GpuTrainingStepsTest.drift(a, b, false);
    }

    @ParameterizedTest
    @EnumSource(Precision.class)
    void twoRanksTakeTheStepOneGpuTakesAfterBothPasses(Precision precision) {
        NetworkSpec spec = GpuTests.spec("parallel", CFG);
        ModelWeights start = WeightsInit.darknet(spec, 5);
        SgdStep step = new SgdStep(0.01f, 0.9f, 0.0005f, 4, 0f);
        TrainingBatch[] halves = {GpuTests.batch(spec, 2, 610), GpuTests.batch(spec, 2, 611)};
        ModelWeights alone;
        try (CudaTrainingBackend one = new CudaTrainingBackend(spec, start, 2, GpuTests.options(precision))) {
            for (int k = 0; k < 3; k++) {
                one.forwardBackward(halves[0], 1f, false);
                one.forwardBackward(halves[1], 1f, true);
                assertTrue(!one.gradientsOverflowed());
                one.step(step, 1f);
            }
            alone = one.masterWeights(12);
        }
        CudaTrainingBackend[] ranks = new CudaTrainingBackend[2];
        try (NcclClique clique = NcclClique.of(0, 1); RankThreads threads = new RankThreads(2, "test", clique::abort)) {
            threads.onEach(r -> {
                ranks[r] = new CudaTrainingBackend(spec, start, 2, GpuTests.options(precision).withDevice(r),
                        clique.rank(r));
                return null;
            });
            try {
                threads.onEach(r -> {
                    for (int k = 0; k < 3; k++) {
                        ranks[r].forwardBackward(halves[r], 1f, true);
                        assertTrue(!ranks[r].gradientsOverflowed());
                        ranks[r].step(step, 1f);
                    }
                    return null;
                });
                List<float[]> masters = threads.onEach(r -> ranks[r].masterArena());
                assertArrayEquals(masters.get(0), masters.get(1), "the two ranks hold the same bits");
                ModelWeights parallel = threads.onEach(r -> ranks[r].masterWeights(12)).get(0);
                double d = trainedDrift(alone, parallel);
                System.out.printf(Locale.ROOT, "%s: two ranks vs one GPU making both passes, 3 steps: rel L2 %.2e%n",
                        precision, d);
                assertTrue(d < (precision == Precision.MIXED ? 1e-3 : 1e-5), precision + ": rel L2 " + d);
            } finally {
                threads.onEach(r -> {
                    if (ranks[r] != null) ranks[r].close();
                    return null;
                });
            }
        }
    }

    @Test
    void anOverflowOnOneRankSkipsTheStepOnEvery() {
        NetworkSpec spec = GpuTests.spec("parallel", CFG);
        ModelWeights start = WeightsInit.darknet(spec, 5);
        TrainingBatch good = GpuTests.batch(spec, 2, 620);
        TrainingBatch bad = GpuTests.batch(spec, 2, 621);
        bad.images()[17] = Float.NaN;   // rank 1's gradients become NaN
        CudaTrainingBackend[] ranks = new CudaTrainingBackend[2];
        try (NcclClique clique = NcclClique.of(0, 1); RankThreads threads = new RankThreads(2, "test", clique::abort)) {
            try {
                List<Boolean> overflowed = threads.onEach(r -> {
                    ranks[r] = new CudaTrainingBackend(spec, start, 2, GpuTests.options(Precision.MIXED).withDevice(r),
                            clique.rank(r));
                    ranks[r].forwardBackward(r == 0 ? good : bad, 1024f, true);
                    return ranks[r].gradientsOverflowed();
                });
                assertEquals(List.of(true, true), overflowed, "rank 0's finite gradients summed with rank 1's NaN");
            } finally {
                threads.onEach(r -> {
                    if (ranks[r] != null) ranks[r].close();
                    return null;
                });
            }
        }
    }

    /**
     * One GPU and two differ by design in the order the passes' gradients are added (((p0 + p1) + p2) + p3 against
     * (p0 + p1) + (p2 + p3)); in mixed precision that moves a few FP16 working weights by an ulp, and the runs drift
     * apart as two runs of the same GPU count do through cuDNN's atomics. So the bar for a resume on another count is
     * the larger of the two noises: two uninterrupted 2-GPU runs, and an uninterrupted 1-GPU run against a 2-GPU one.
     */
    @ParameterizedTest
    @EnumSource(Precision.class)
    void aRunSuspendedOnTwoGpusResumesOnAnotherCountAndEndsAsAnUninterruptedRun(Precision precision) throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 16, 3, 96, 0.25);
        Path cfg = dir.resolve("parallel.cfg");
        Files.writeString(cfg, CFG);
        NetworkSpec spec = NetworkSpec.load(cfg);
        ModelWeights straight = run(cfg, data, dir.resolve("straight"), 2, false, 0, spec, precision);
        ModelWeights again = run(cfg, data, dir.resolve("again"), 2, false, 0, spec, precision);
        ModelWeights alone = run(cfg, data, dir.resolve("alone"), 1, false, 0, spec, precision);
        double noise = Math.max(trainedDrift(again, straight), trainedDrift(alone, straight));
        int[] counts = CudaRuntime.deviceCount() >= 4 ? new int[] {1, 4} : new int[] {1};
        for (int to : counts) {
            Path moved = dir.resolve("to-" + to);
            run(cfg, data, moved, 2, false, ITERATIONS / 2, spec, precision);
            ModelWeights resumed = run(cfg, data, moved, to, true, 0, spec, precision);
            double drift = trainedDrift(resumed, straight);
            System.out.printf(Locale.ROOT, "%s: 2 GPUs then %d: rel L2 %.2e vs the uninterrupted 2-GPU run (another "
                    + "2-GPU run %.2e, a 1-GPU run %.2e)%n", precision, to, drift, trainedDrift(again, straight),
                    trainedDrift(alone, straight));
            assertTrue(drift <= 3 * noise + 1e-5, precision + ": 2 GPUs then " + to + ": " + drift + ", noise " + noise);
        }
    }

    static ModelWeights run(Path cfg, Path data, Path out, int gpus, boolean resume, int stopAfter, NetworkSpec spec,
                            Precision precision) {
        AtomicInteger done = new AtomicInteger();
        CudaTrainingOptions options = GpuTests.options(precision);
        TrainingRun.Backends backends = gpus == 1
                ? TrainingRun.alone((s, initial, miniBatch, threads, fp16) ->
                        new CudaTrainingBackend(s, initial, miniBatch, options))
                : new NcclRanks(NcclRanks.firstDevices(gpus), options);
        TrainingRun.Result r = TrainingRun.run(new TrainingRun.Options(cfg, null, data, ITERATIONS, out, 100, resume,
                1, 1, precision == Precision.MIXED), s -> done.incrementAndGet(), backends, () -> stopAfter > 0 && done.get() >= stopAfter);
        assertEquals(stopAfter > 0 ? stopAfter : ITERATIONS, r.iterations());
        return WeightsFile.read(r.weights(), spec);
    }
}
