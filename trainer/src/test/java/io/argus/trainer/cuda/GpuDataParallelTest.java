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
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.parallel.RankThreads;
import io.argus.trainer.train.Checkpoint;
import io.argus.trainer.train.MomentumFile;
import io.argus.trainer.train.TrainingRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
@Budget(seconds = 40)   // 6.4-16.8 s on two H200s: 23 training runs
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
    /** One GPU making a pass over each of {@code halves}, then a step, three times; its weights after. */
    private static ModelWeights oneGpu(NetworkSpec spec, ModelWeights start, SgdStep step, TrainingBatch[] halves,
                                       Precision precision) {
        try (CudaTrainingBackend one = new CudaTrainingBackend(spec, start, 2, GpuTests.options(precision))) {
            for (int k = 0; k < 3; k++) {
                for (int h = 0; h < halves.length; h++) one.forwardBackward(halves[h], 1f, h == halves.length - 1);
                assertTrue(!one.gradientsOverflowed());
                one.step(step, 1f);
            }
            return one.masterWeights(12);
        }
    }

    static double trainedDrift(ModelWeights a, ModelWeights b) {
        return GpuTrainingStepsTest.drift(a, b, false);
    }

    /**
     * Two ranks, each making one half's pass and summing the gradients, take the step one GPU takes after making both
     * passes. They differ only by the order of addition and by cuDNN's atomics, which in mixed precision move FP16
     * working weights by ulps that three steps grow: the ranks ended 1.5e-4 to 1.1e-3 from one GPU over eight runs on
     * an H200 pair (2026-11-30), one-GPU runs 3e-4 to 1e-3 from each other. So the ranks' weights are judged by their
     * mean distance to three one-GPU runs, and a GPU that stepped after one half only (what a rank that does not sum
     * computes) is the control: it lands ~0.68 away. The bar: three times the one-GPU runs' spread, at least 1e-5 in
     * FP32 and, in mixed precision, at least a hundredth of the control's distance.
     */
    @ParameterizedTest
    @EnumSource(Precision.class)
    void twoRanksTakeTheStepOneGpuTakesAfterBothPasses(Precision precision) {
        NetworkSpec spec = GpuTests.spec("parallel", CFG);
        ModelWeights start = WeightsInit.darknet(spec, 5);
        SgdStep step = new SgdStep(0.01f, 0.9f, 0.0005f, 4, 0f);
        TrainingBatch[] halves = {GpuTests.batch(spec, 2, 610), GpuTests.batch(spec, 2, 611)};
        List<ModelWeights> alone = new ArrayList<>();
        for (int run = 0; run < 3; run++) alone.add(oneGpu(spec, start, step, halves, precision));
        ModelWeights unsummed = oneGpu(spec, start, step, new TrainingBatch[] {halves[0]}, precision);
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
                double noise = 0;
                double d = 0;
                for (int i = 0; i < alone.size(); i++) {
                    for (int j = i + 1; j < alone.size(); j++) {
                        noise = Math.max(noise, trainedDrift(alone.get(i), alone.get(j)));
                    }
                    d += trainedDrift(alone.get(i), parallel) / alone.size();
                }
                double off = trainedDrift(unsummed, parallel);
                double bar = Math.max(precision == Precision.MIXED ? off / 100 : 1e-5, 3 * noise);
                System.out.printf(Locale.ROOT, "%s: two ranks vs one GPU making both passes, 3 steps: rel L2 %.2e on "
                        + "average (one-GPU runs at most %.2e apart; bar %.2e), one half only %.2e%n", precision, d,
                        noise, bar, off);
                assertTrue(d < bar, precision + ": rel L2 " + d + ", one-GPU runs " + noise);
                assertTrue(off > 10 * Math.max(d, 1e-6), precision + ": one half only " + off + ", ranks " + d);
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
     * apart as two runs of the same GPU count do through cuDNN's atomics. As in GpuResumeTest, the noise is the
     * largest distance among uninterrupted runs (two on 2 GPUs, two on 1: both orders of addition), the resumed run is
     * judged by its mean distance to them, and a control resumed with its momentum zeroed must land far away (so the
     * comparison can fail). In mixed precision the drift is not gradual: a run either stays within ~1e-4 of another
     * or, once an ulp flip grows, ends ~2-3e-3 away (a resumed run 3.2e-3 from runs 1.6-4.3e-4 apart on 2026-11-30,
     * 1.4e-4 from runs 2.4e-3 apart before), so its bar is at least a hundredth of the control's distance (about 0.4
     * for a lost state).
     */
    @ParameterizedTest
    @EnumSource(Precision.class)
    void aRunSuspendedOnTwoGpusResumesOnAnotherCountAndEndsAsAnUninterruptedRun(Precision precision) throws Exception {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 16, 3, 96, 0.25);
        Path cfg = dir.resolve("parallel.cfg");
        Files.writeString(cfg, CFG);
        NetworkSpec spec = NetworkSpec.load(cfg);
        List<ModelWeights> uninterrupted = new ArrayList<>();
        int[] gpus = {2, 2, 1, 1};
        for (int i = 0; i < gpus.length; i++) {
            uninterrupted.add(run(cfg, data, dir.resolve("straight-" + i), gpus[i], false, 0, spec, precision));
        }
        double noise = 0;
        for (int i = 0; i < uninterrupted.size(); i++) {
            for (int j = i + 1; j < uninterrupted.size(); j++) {
                noise = Math.max(noise, trainedDrift(uninterrupted.get(j), uninterrupted.get(i)));
            }
        }
        int[] counts = CudaRuntime.deviceCount() >= 4 ? new int[] {1, 4} : new int[] {1};
        for (int to : counts) {
            Path moved = dir.resolve("to-" + to);
            run(cfg, data, moved, 2, false, ITERATIONS / 2, spec, precision);
            Path zeroed = dir.resolve("to-" + to + "-zeroed");
            GpuResumeTest.copyCheckpoint(moved, zeroed, spec);
            MomentumFile.Saved saved = MomentumFile.read(Checkpoint.latest(moved, spec).momentum(), spec);
            MomentumFile.write(Checkpoint.latest(zeroed, spec).momentum(), saved.iteration(), new OptimizerState(
                    saved.state().tensors().stream().map(t -> new OptimizerState.Tensor(t.name(),
                            new float[t.momentum().length], t.master())).toList(), saved.state().emaRunning()));
            ModelWeights resumed = run(cfg, data, moved, to, true, 0, spec, precision);
            ModelWeights control = run(cfg, data, zeroed, to, true, 0, spec, precision);
            double drift = 0;
            double zero = 0;
            for (ModelWeights u : uninterrupted) {
                drift += trainedDrift(resumed, u) / uninterrupted.size();
                zero += trainedDrift(control, u) / uninterrupted.size();
            }
            double bar = precision == Precision.MIXED ? Math.max(3 * noise, zero / 100) : 3 * noise + 1e-5;
            System.out.printf(Locale.ROOT, "%s: 2 GPUs then %d: rel L2 %.2e on average to the uninterrupted runs "
                    + "(2, 2, 1 and 1 GPUs; at most %.2e apart), resumed with zero momentum %.2e; bar %.2e%n",
                    precision, to, drift, noise, zero, bar);
            assertTrue(drift <= bar, precision + ": 2 GPUs then " + to + ": " + drift + ", noise " + noise
                    + ", zero momentum " + zero);
            assertTrue(zero > 10 * Math.max(drift, 1e-6), precision + ": zero momentum " + zero + ", resumed " + drift);
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
