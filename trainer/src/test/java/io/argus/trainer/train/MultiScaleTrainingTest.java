package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import io.argus.trainer.data.InputSizes.Size;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-scale training end to end on a tiny cfg with random=1 (64x64, so inputs of 64, 96 and 128): every pass of an
 * iteration trains at the size the schedule gives for (seed, iteration / 10), with batches made at that size, the
 * size changing only at iterations 0, 10, 20; the loss stays finite; a run suspended at iteration 12 and resumed
 * trains the same sizes and ends bit for bit where an uninterrupted run does; the ranks of a data-parallel run train
 * the same sizes; random=0 trains at the cfg's size throughout.
 */
@Budget(seconds = 8)
class MultiScaleTrainingTest {
    static final int ITERATIONS = 25;
    static final int MAX_BATCHES = 1000;   // far beyond the 25 run, so the last-100-at-largest rule stays out of it
    static final int THREADS = 2;

    @TempDir
    Path dir;
    Path data;
    Path cfg;
    NetworkSpec spec;
    long seed;
    MultiScale schedule;

    @BeforeEach
    void setUp() throws IOException {
        data = SyntheticScenes.write(dir.resolve("synth"), 8, 3, 96, 0.25);
        cfg = dir.resolve("ms.cfg");
        Files.writeString(cfg, cfgText("random=1"));
        spec = NetworkSpec.load(cfg);
        // a seed whose blocks 0, 1 and 2 differ, so a change of size at the wrong iteration would show
        for (seed = 1; ; seed++) {
            schedule = MultiScale.of(spec, MultiScale.Mode.CFG, seed, MAX_BATCHES);
            if (!schedule.at(0).equals(schedule.at(10)) && !schedule.at(10).equals(schedule.at(20))) break;
        }
    }

    static String cfgText(String random) {
        return TinyTrainingCfg.text(5).replace("width=32", "width=64").replace("height=32", "height=64") + random
                + "\n";
    }

    /** What a run did: the input of every pass by iteration (from 1), the sizes it announced, the losses. */
    static final class Seen {
        final Map<Integer, List<Size>> passes = new ConcurrentHashMap<>();
        final Map<Integer, Size> announced = new TreeMap<>();
        final List<Double> losses = new ArrayList<>();
        final AtomicInteger done = new AtomicInteger();
        /** Iterations done before the run (a resume's). */
        final int from;
        String start;

        Seen(int from) { this.from = from; }

        Seen() { this(0); }
    }

    TrainingRun.Result run(Path cfg, Path out, boolean resume, int stopAfter, Seen seen, TrainingRun.Backends ranks) {
        TrainingRun.Listener listener = new TrainingRun.Listener() {
            @Override
            public void onStart(String description) { seen.start = description; }

            @Override
            public void onIteration(IterationStats s) {
                seen.losses.add(s.lossPerImage().total());
                seen.done.incrementAndGet();
            }

            @Override
            public void onInputSize(int iteration, int width, int height) {
                seen.announced.put(iteration, new Size(width, height));
            }

            @Override
            public void onNotice(String message) {}
        };
        TrainingRun.Backends recorded = new TrainingRun.Backends() {
            @Override
            public int ranks() { return ranks.ranks(); }

            @Override
            public TrainingBackend open(int rank, NetworkSpec spec, ModelWeights initial, int miniBatch, int threads,
                                        boolean fp16) {
                return new Recording(ranks.open(rank, spec, initial, miniBatch, threads, fp16), seen);
            }

            @Override
            public void abort() { ranks.abort(); }

            @Override
            public void close() { ranks.close(); }
        };
        return TrainingRun.run(new TrainingRun.Options(cfg, null, data, MAX_BATCHES, out, 100, resume, seed, THREADS,
                false, 1, 1, TrainingRun.AUTO_BURN_IN, 0f, MultiScale.Mode.CFG), listener, recorded,
                () -> seen.done.get() >= stopAfter);
    }

    TrainingRun.Result run(Path out, boolean resume, int stopAfter, Seen seen) {
        return run(cfg, out, resume, stopAfter, seen, TrainingRun.alone(TrainingRun.CPU));
    }

    @Test
    void sizesFollowTheScheduleAndAResumeEndsWhereAnUninterruptedRunDoes() throws IOException {
        Seen whole = new Seen();
        TrainingRun.Result straight = run(dir.resolve("straight"), false, ITERATIONS, whole);
        assertEquals(ITERATIONS, straight.iterations());
        assertTrue(whole.start.contains("multi-scale every 10 iterations"), whole.start);
        assertTrue(whole.start.contains("a network made for each, the largest 128x128"), whole.start);
        for (int i = 1; i <= ITERATIONS; i++) {
            Size expected = schedule.at(i - 1);
            List<Size> passes = whole.passes.get(i);
            assertEquals(Collections.nCopies(2, expected), passes, "iteration " + i);
            assertEquals(0, expected.width() % 32);
            assertTrue(expected.width() >= 64 && expected.width() <= 128, expected.toString());
            if (i > 1 && (i - 1) % 10 != 0) assertEquals(whole.passes.get(i - 1), passes, "no change at " + i);
        }
        assertNotEquals(whole.passes.get(10), whole.passes.get(11));
        assertNotEquals(whole.passes.get(20), whole.passes.get(21));
        assertEquals(new Size(128, 128), schedule.at(0), "the first block at the largest");
        assertEquals(Map.of(1, schedule.at(0), 11, schedule.at(10), 21, schedule.at(20)), whole.announced);
        for (double loss : whole.losses) assertTrue(Double.isFinite(loss) && loss > 0, "loss " + loss);

        Seen first = new Seen();
        TrainingRun.Result half = run(dir.resolve("stopped"), false, 12, first);
        assertTrue(half.suspended());
        assertEquals(12, half.iterations());
        Seen rest = new Seen(12);
        TrainingRun.Result resumed = run(dir.resolve("stopped"), true, ITERATIONS - 12, rest);
        assertEquals(ITERATIONS, resumed.iterations());
        for (int i = 13; i <= ITERATIONS; i++) assertEquals(whole.passes.get(i), rest.passes.get(i), "iteration " + i);
        // the resumed run says the size it starts at, then changes where the uninterrupted one did
        assertEquals(Map.of(13, schedule.at(12), 21, schedule.at(20)), rest.announced);
        ResumeTest.assertSameBytes(Checkpoint.weightsFile(dir.resolve("straight"), spec),
                Checkpoint.weightsFile(dir.resolve("stopped"), spec));
        ResumeTest.assertSameBytes(Checkpoint.latest(dir.resolve("straight"), spec).momentum(),
                Checkpoint.latest(dir.resolve("stopped"), spec).momentum());
    }

    @Test
    void theRanksOfADataParallelRunTrainTheSameSizes() {
        Seen seen = new Seen();
        run(cfg, dir.resolve("ranks"), false, 12, seen, new HostRanks(2));
        for (int i = 1; i <= 12; i++) {
            // one pass on each of the two ranks per iteration (subdivisions 2 shared out), both at the schedule's size
            assertEquals(Collections.nCopies(2, schedule.at(i - 1)), seen.passes.get(i), "iteration " + i);
        }
    }

    @Test
    void randomZeroTrainsAtTheCfgsSize() throws IOException {
        Path plain = dir.resolve("plain.cfg");
        Files.writeString(plain, cfgText("random=0"));
        Seen seen = new Seen();
        run(plain, dir.resolve("plain"), false, 12, seen, TrainingRun.alone(TrainingRun.CPU));
        assertTrue(seen.announced.isEmpty(), seen.announced.toString());
        assertTrue(!seen.start.contains("multi-scale"), seen.start);
        for (int i = 1; i <= 12; i++) {
            assertEquals(Collections.nCopies(2, new Size(64, 64)), seen.passes.get(i), "iteration " + i);
        }
    }

    /** A backend that trains at the cfg's size only refuses a multi-scale run at its start. */
    @Test
    void aBackendOfOneSizeRefusesAtTheStart() {
        Seen seen = new Seen();
        TrainingRun.Backends oneSize = TrainingRun.alone((s, w, miniBatch, threads, fp16) ->
                new Recording(new CpuTrainingBackend(s, w, miniBatch, threads, fp16), seen, false));
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> run(cfg, dir.resolve("one"), false, 12, seen, oneSize));
        assertEquals("multi-scale training (random in the cfg's [yolo] layers): the cpu backend trains at the cfg's "
                + "size only: turn it off with --multi-scale off (or random=0 in the cfg)", e.getMessage());
        assertTrue(seen.passes.isEmpty(), "refused before the first pass");
    }

    /** A backend that notes the input size of every pass (the batch's, checked against what it holds). */
    static final class Recording implements TrainingBackend {
        private final TrainingBackend inner;
        private final Seen seen;
        /** Whether it trains at the sizes asked for, else it refuses them as a backend of one size does. */
        private final boolean severalSizes;
        private int iteration;

        Recording(TrainingBackend inner, Seen seen) {
            this(inner, seen, true);
        }

        Recording(TrainingBackend inner, Seen seen, boolean severalSizes) {
            this.inner = inner;
            this.seen = seen;
            this.severalSizes = severalSizes;
            this.iteration = seen.from + 1;
        }

        @Override
        public LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration) {
            Size size = batch.sized() ? new Size(batch.width(), batch.height()) : new Size(64, 64);
            assertTrue(batch.images().length >= batch.count() * size.imageFloats());
            seen.passes.computeIfAbsent(iteration, k -> Collections.synchronizedList(new ArrayList<>())).add(size);
            return inner.forwardBackward(batch, lossScale, lastOfIteration);
        }

        @Override
        public LossParts forwardBackward(TrainingBatch batch, float lossScale) {
            return forwardBackward(batch, lossScale, false);
        }

        @Override
        public float step(SgdStep step, float lossScale) {
            iteration++;
            return inner.step(step, lossScale);
        }

        @Override
        public void discardGradients() {
            iteration++;
            inner.discardGradients();
        }

        @Override
        public void restoreOptimizerState(OptimizerState state) {
            inner.restoreOptimizerState(state);
        }

        @Override
        public OptimizerState optimizerState() { return inner.optimizerState(); }

        @Override
        public void prepareInputSizes(List<NetworkSpec> sizes) {
            if (severalSizes) {
                inner.prepareInputSizes(sizes);
            } else {
                TrainingBackend.super.prepareInputSizes(sizes);
            }
        }

        @Override
        public String name() { return inner.name(); }

        @Override
        public String kind() { return inner.kind(); }

        @Override
        public String precision() { return inner.precision(); }

        @Override
        public NetworkSpec spec() { return inner.spec(); }

        @Override
        public int maxBatch() { return inner.maxBatch(); }

        @Override
        public int ranks() { return inner.ranks(); }

        @Override
        public boolean gradientsOverflowed() { return inner.gradientsOverflowed(); }

        @Override
        public ModelWeights weights(long seen) { return inner.weights(seen); }

        @Override
        public void close() { inner.close(); }
    }
}
