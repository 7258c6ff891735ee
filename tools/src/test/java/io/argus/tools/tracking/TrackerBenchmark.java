package io.argus.tools.tracking;

import io.argus.detector.Detection;
import io.argus.tracking.Assignment;
import io.argus.tracking.ByteTracker;
import io.argus.tracking.CommonsMathBoxFilter;
import io.argus.tracking.KalmanBoxFilter;
import io.argus.tracking.MovingBoxes;
import io.argus.tracking.TrackState;
import io.argus.tracking.TrackerSettings;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jgrapht.Graph;
import org.jgrapht.alg.matching.KuhnMunkresMinimalWeightBipartitePerfectMatching;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The tracker's cost per frame in steady state (the acceptance: under 1 ms with 100 objects), and the two parts it
 * leans on, to see where the time goes: {@code update} is ByteTracker.update on a crowd of moving, crossing boxes
 * with noisy edges (MovingBoxes, 1920x1080); {@code kalman} is the predict and correct of one filter per object, and
 * {@code kalmanCommonsMath} the same on Commons Math's KalmanFilter (why KalmanBoxFilter does without it);
 * {@code kuhnMunkresWholeFrame} is jgrapht's Kuhn-Munkres on the whole tracks x detections problem, as it would run
 * without Assignment's split into components, and {@code assignmentWholeFrame} Assignment on the same problem.
 *
 * <p>The frames are made before measuring and played forth then back (objects reverse, as at a wall), so the tracker
 * stays in steady state for as long as JMH runs it. Run: {@code scripts/jmh-pipeline TrackerBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class TrackerBenchmark {
    private static final int FRAMES = 1000;
    private static final double FRAME_MS = 40;

    @Param("100")
    public int objects;

    /** Standard deviation of each box edge, pixels. */
    @Param("1.5")
    public double noisePx;

    private final List<List<Detection>> frames = new ArrayList<>();
    private int step;
    private ByteTracker tracker;
    private double timeMs;
    private List<KalmanBoxFilter> filters;
    private List<CommonsMathBoxFilter> referenceFilters;
    private double[][] wholeFrameCost;

    @Setup(Level.Trial)
    public void setUp() {
        MovingBoxes crowd = new MovingBoxes(objects, 1920, 1080, noisePx, 15);
        for (int f = 0; f < FRAMES; f++) frames.add(crowd.next());
        tracker = new ByteTracker(TrackerSettings.DEFAULTS);
        for (int f = 0; f < 100; f++) tracker.update(nextFrame(), timeMs += FRAME_MS);  // every track confirmed
        filters = new ArrayList<>();
        referenceFilters = new ArrayList<>();
        for (Detection d : frames.get(0)) {
            filters.add(new KalmanBoxFilter(d.box()));
            referenceFilters.add(new CommonsMathBoxFilter(d.box()));
        }
        wholeFrameCost = iouCost(frames.get(0), frames.get(1));
    }

    @Benchmark
    public List<TrackState> update() {
        return tracker.update(nextFrame(), timeMs += FRAME_MS);
    }

    @Benchmark
    public KalmanBoxFilter kalman() {
        List<Detection> frame = nextFrame();
        for (int i = 0; i < filters.size(); i++) {
            filters.get(i).predict();
            filters.get(i).update(frame.get(i).box());
        }
        return filters.get(0);
    }

    /** The same on Commons Math's KalmanFilter (the 8-state reference): what KalmanBoxFilter avoids. */
    @Benchmark
    public CommonsMathBoxFilter kalmanCommonsMath() {
        List<Detection> frame = nextFrame();
        for (int i = 0; i < referenceFilters.size(); i++) {
            referenceFilters.get(i).predict();
            referenceFilters.get(i).update(frame.get(i).box());
        }
        return referenceFilters.get(0);
    }

    /** What Assignment would cost unsplit: one square graph of side max(rows, columns), padded at the limit 0.8. */
    @Benchmark
    public Object kuhnMunkresWholeFrame() {
        double limit = TrackerSettings.DEFAULTS.matchThreshold();
        int side = wholeFrameCost.length;
        Graph<Integer, DefaultWeightedEdge> graph = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
        Set<Integer> left = new LinkedHashSet<>();
        Set<Integer> right = new LinkedHashSet<>();
        for (int i = 0; i < side; i++) {
            graph.addVertex(i);
            graph.addVertex(side + i);
            left.add(i);
            right.add(side + i);
        }
        for (int i = 0; i < side; i++) {
            for (int j = 0; j < side; j++) {
                graph.setEdgeWeight(graph.addEdge(i, side + j), Math.min(wholeFrameCost[i][j], limit));
            }
        }
        return new KuhnMunkresMinimalWeightBipartitePerfectMatching<>(graph, left, right).getMatching();
    }

    /** The Assignment used by the tracker on the same whole-frame problem, for comparison with the above. */
    @Benchmark
    public int[] assignmentWholeFrame() {
        return Assignment.solve(wholeFrameCost, TrackerSettings.DEFAULTS.matchThreshold());
    }

    /** Frames 0, 1, ..., FRAMES-1, FRAMES-2, ..., 1, 0, 1, ...: forth and back without a jump. */
    private List<Detection> nextFrame() {
        int period = 2 * FRAMES - 2;
        int k = step++ % period;
        return frames.get(k < FRAMES ? k : period - k);
    }

    /** 1 - IoU of two consecutive frames' boxes, rounded to 2^-20 as Assignment does (the search must end). */
    private static double[][] iouCost(List<Detection> previous, List<Detection> current) {
        double[][] cost = new double[previous.size()][current.size()];
        for (int i = 0; i < previous.size(); i++) {
            for (int j = 0; j < current.size(); j++) {
                double c = 1 - previous.get(i).box().iou(current.get(j).box());
                cost[i][j] = Math.rint(c * 0x1p20) / 0x1p20;
            }
        }
        return cost;
    }
}
