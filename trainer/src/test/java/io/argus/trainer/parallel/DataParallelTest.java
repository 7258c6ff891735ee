package io.argus.trainer.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.train.Checkpoint;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.HostRanks;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.MomentumFile;
import io.argus.trainer.train.TrainingBackend;
import io.argus.trainer.train.TrainingRun;
import io.argus.trainer.train.TrainingRunTest;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data-parallel training, checked on the CPU with ranks as threads (the same run loop, data shares, checkpoints and
 * resumes a multi-GPU run uses; only the all-reduce differs): ranks that each make their share of an iteration's
 * passes end where one backend making all the passes ends, up to the order of float additions; a run suspended on
 * some number of ranks resumes on another and still ends there; and the controls (no summing, half the data) end
 * measurably elsewhere, so the comparisons can fail.
 */
@Budget(seconds = 15)
class DataParallelTest {
    /** The tiny network with four mini-batches of 2 images per iteration: 1, 2 or 4 ranks share them out. */
    static final String CFG = TrainingRunTest.CFG.replace("batch=4", "batch=8").replace("subdivisions=2",
            "subdivisions=4");
    static final int ITERATIONS = 6;
    static final int THREADS = 2;

    @TempDir
    Path dir;
    Path data;
    Path cfg;
    NetworkSpec spec;

    @BeforeEach
    void tinyDataset() throws IOException {
        data = SyntheticScenes.write(dir.resolve("synth"), 16, 3, 96, 0.25);
        cfg = dir.resolve("tiny.cfg");
        Files.writeString(cfg, CFG);
        spec = NetworkSpec.load(cfg);
    }

    TrainingRun.Result run(Path cfg, Path out, TrainingRun.Backends backends, boolean resume, int stopAfter,
                           List<Double> losses) {
        AtomicInteger done = new AtomicInteger();
        TrainingRun.Listener listener = s -> {
            done.incrementAndGet();
            if (losses != null) losses.add(s.lossPerImage().total());
        };
        return TrainingRun.run(new TrainingRun.Options(cfg, null, data, ITERATIONS, out, 100, resume, 1, THREADS,
                false), listener, backends, () -> stopAfter > 0 && done.get() >= stopAfter);
    }

    TrainingRun.Backends alone() { return TrainingRun.alone(TrainingRun.CPU); }

    /** Relative L2 distance over every trained value (weights, biases, scales; not the rolling statistics). */
    double distance(Path a, Path b) {
        ModelWeights x = WeightsFile.read(Checkpoint.weightsFile(a, spec), spec);
        ModelWeights y = WeightsFile.read(Checkpoint.weightsFile(b, spec), spec);
        double diff = 0;
        double norm = 0;
        for (int layer : x.layerIndices()) {
            ConvWeights p = x.conv(layer);
            ConvWeights q = y.conv(layer);
            float[][] ps = {p.weights(), p.biases(), p.scales()};
            float[][] qs = {q.weights(), q.biases(), q.scales()};
            for (int t = 0; t < ps.length; t++) {
                if (ps[t] == null) continue;
                for (int i = 0; i < ps[t].length; i++) {
                    diff += Math.pow(ps[t][i] - qs[t][i], 2);
                    norm += Math.pow(ps[t][i], 2);
                }
            }
        }
        return Math.sqrt(diff / norm);
    }

    /** How far the run moved the weights from where it started: the scale the distances are judged against. */
    double moved(Path out) throws IOException {
        Path none = dir.resolve("start-" + out.getFileName());
        TrainingRun.run(new TrainingRun.Options(cfg, null, data, 1, none, 100, false, 1, THREADS, false),
                s -> {}, alone(), () -> false);
        return distance(out, none);
    }

    @Test
    void twoAndFourRanksEndWhereOneBackendMakingEveryPassEnds() throws IOException {
        Path one = dir.resolve("one");
        List<Double> oneLoss = new ArrayList<>();
        run(cfg, one, alone(), false, 0, oneLoss);
        for (int ranks : new int[] {2, 4}) {
            Path many = dir.resolve("ranks-" + ranks);
            List<Double> manyLoss = new ArrayList<>();
            TrainingRun.Result r = run(cfg, many, new HostRanks(ranks), false, 0, manyLoss);
            assertEquals(ITERATIONS, r.iterations());
            double d = distance(one, many);
            assertTrue(d < 1e-5, ranks + " ranks vs one backend: relative L2 " + d);
            for (int i = 0; i < ITERATIONS; i++) {
                assertEquals(oneLoss.get(i), manyLoss.get(i), 1e-5 * Math.abs(oneLoss.get(i)),
                        "iteration " + (i + 1) + "'s loss per image on " + ranks + " ranks");
            }
            // the momentum too: every rank stepped with the summed gradient
            OptimizerState a = MomentumFile.read(Checkpoint.latest(one, spec).momentum(), spec).state();
            OptimizerState b = MomentumFile.read(Checkpoint.latest(many, spec).momentum(), spec).state();
            for (int t = 0; t < a.tensors().size(); t++) {
                float[] x = a.tensors().get(t).momentum();
                float[] y = b.tensors().get(t).momentum();
                double diff = 0;
                double norm = 0;
                for (int i = 0; i < x.length; i++) {
                    diff += Math.pow(x[i] - y[i], 2);
                    norm += Math.pow(x[i], 2);
                }
                double rel = Math.sqrt(diff / norm);
                assertTrue(rel < 1e-4, ranks + " ranks: momentum of " + a.tensors().get(t).name() + " rel L2 " + rel);
            }
        }
        assertTrue(moved(one) > 1e-3, "the run moved the weights: the distances above are small against it");
    }

    @Test
    void withoutSummingTheRanksWouldEndElsewhere() throws IOException {
        // control: ranks that do not sum (each steps on its own half) drift from the one-backend run and from each other
        Path one = dir.resolve("one");
        run(cfg, one, alone(), false, 0, null);
        Path lonely = dir.resolve("lonely");
        run(cfg, lonely, new TrainingRun.Backends() {
            @Override
            public int ranks() { return 2; }

            @Override
            public TrainingBackend open(int rank, NetworkSpec s, ModelWeights initial, int miniBatch, int threads,
                                        boolean fp16) {
                return new Unsummed(new CpuTrainingBackend(s, initial, miniBatch, threads, fp16), 2);
            }
        }, false, 0, null);
        assertTrue(distance(one, lonely) > 1e-4, "unsummed ranks: relative L2 " + distance(one, lonely));
    }

    @Test
    void aRunSuspendedOnSomeRanksResumesOnAnotherNumberAndEndsTheSame() {
        Path straight = dir.resolve("straight");
        run(cfg, straight, alone(), false, 0, null);
        int[][] plans = {{2, 4}, {4, 1}, {1, 2}};
        for (int[] p : plans) {
            Path moved = dir.resolve("from-" + p[0] + "-to-" + p[1]);
            TrainingRun.Result half = run(cfg, moved, p[0] == 1 ? alone() : new HostRanks(p[0]), false,
                    ITERATIONS / 2, null);
            assertTrue(half.suspended());
            assertEquals(ITERATIONS / 2, half.iterations());
            TrainingRun.Result rest = run(cfg, moved, p[1] == 1 ? alone() : new HostRanks(p[1]), true, 0, null);
            assertEquals(ITERATIONS, rest.iterations());
            double d = distance(straight, moved);
            assertTrue(d < 1e-5, p[0] + " ranks then " + p[1] + ": relative L2 " + d + " from the uninterrupted run");
        }
    }

    @Test
    void mini_batchesThatDoNotShareOutAreRefusedNamingTheFix() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> run(cfg, dir.resolve("three"), new HostRanks(3), false, 0, null));
        assertTrue(e.getMessage().contains("subdivisions=4") && e.getMessage().contains("multiple of 3"),
                e.getMessage());
    }

    @Test
    void aRankThatFailsReleasesTheOthersWaitingInTheAllReduce() {
        HostAllReduce group = new HostAllReduce(2);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (RankThreads ranks = new RankThreads(2, "test", group::abort)) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> ranks.onEach(r -> {
                    if (r == 1) {
                        Waits.waitFor(() -> waitingInTheSum("test-rank-0"), 10_000, 5, "rank 0 waiting in the sum");
                        throw new IllegalStateException("rank one broke");
                    }
                    group.member(r).sum(List.of(FloatBuffer.allocate(4)));
                    return null;
                }));
                assertEquals("rank one broke", e.getMessage());
                assertTrue(ranks.aborted());
            }
        });
    }

    @Test
    void theHostAllReduceGivesEveryRankTheSumInRankOrder() {
        HostAllReduce group = new HostAllReduce(3);
        try (RankThreads ranks = new RankThreads(3, "test", group::abort)) {
            List<float[]> out = ranks.onEach(r -> {
                FloatBuffer b = FloatBuffer.wrap(new float[] {r + 1, 10f * r, 1e8f, r == 2 ? -1e8f : 0.5f});
                group.member(r).sum(List.of(b));
                return b.array();
            });
            float[] expect = {6, 30, 3e8f, (0.5f + 0.5f) + -1e8f};
            for (float[] o : out) assertEquals(java.util.Arrays.toString(expect), java.util.Arrays.toString(o));
        }
    }

    /** A rank that claims its place in a run of {@code ranks} but never sums its gradients (the control). */
    record Unsummed(TrainingBackend b, int ranks) implements TrainingBackend {
        public String name() { return b.name(); }
        public String kind() { return b.kind(); }
        public String precision() { return b.precision(); }
        public NetworkSpec spec() { return b.spec(); }
        public int maxBatch() { return b.maxBatch(); }
        public LossParts forwardBackward(TrainingBatch batch, float lossScale) { return b.forwardBackward(batch, lossScale); }
        public boolean gradientsOverflowed() { return b.gradientsOverflowed(); }
        public float step(SgdStep step, float lossScale) { return b.step(step, lossScale); }
        public void discardGradients() { b.discardGradients(); }
        public ModelWeights weights(long seen) { return b.weights(seen); }
        public OptimizerState optimizerState() { return b.optimizerState(); }
        public void restoreOptimizerState(OptimizerState state) { b.restoreOptimizerState(state); }
        public void close() { b.close(); }
    }

    /** Whether the thread named {@code name} is parked in the all-reduce's barrier (its stack says so). */
    private static boolean waitingInTheSum(String name) {
        return Thread.getAllStackTraces().entrySet().stream().anyMatch(e -> e.getKey().getName().equals(name)
                && e.getKey().getState() == Thread.State.WAITING
                && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(CyclicBarrier.class.getName())));
    }

}
