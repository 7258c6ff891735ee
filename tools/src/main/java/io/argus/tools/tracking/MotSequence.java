package io.argus.tools.tracking;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A video's ground truth and a tracker's results frame by frame, as the metrics read them (TrackEval's "preprocessed
 * sequence data"): ids numbered densely from 0, and in each frame the similarity of every ground-truth box to every
 * result box: their IoU, or 0 when their classes differ.
 *
 * <p>Ground-truth boxes that should not be scored are taken out first, as TrackEval's MOTChallenge preprocessing does:
 * those marked conf 0 go (a result box on them stays, and is a false positive), and those less visible than
 * {@code minVisibility} (an object behind an occluder or half out of the frame, which a detector cannot be asked to
 * find) are treated like MOTChallenge's distractors: a result box matching one (IoU >= 0.5, in the frame's best
 * one-to-one matching with all ground-truth boxes) goes too, being neither right nor wrong.
 */
public final class MotSequence {
    /** Ids and similarities in one frame: {@code similarity[i][j]} of ground-truth box i and result box j. */
    public record Frame(int number, int[] gtIds, int[] trackerIds, double[][] similarity) {}

    /** Matching a result box to an ignored ground-truth box needs this IoU (TrackEval's). */
    static final double IGNORE_MATCH_IOU = 0.5;
    static final double EPS = Math.ulp(1.0);

    private final List<Frame> frames;
    private final int gtIdCount;
    private final int trackerIdCount;
    private final int ignoredGtBoxes;
    private final int ignoredTrackerBoxes;

    private MotSequence(List<Frame> frames, int gtIdCount, int trackerIdCount, int ignoredGtBoxes,
                        int ignoredTrackerBoxes) {
        this.frames = frames;
        this.gtIdCount = gtIdCount;
        this.trackerIdCount = trackerIdCount;
        this.ignoredGtBoxes = ignoredGtBoxes;
        this.ignoredTrackerBoxes = ignoredTrackerBoxes;
    }

    /** Every ground-truth box marked conf 1 is scored, however hidden. */
    public static MotSequence of(List<MotRow> gt, List<MotRow> results) {
        return of(gt, results, 0);
    }

    public static MotSequence of(List<MotRow> gt, List<MotRow> results, double minVisibility) {
        Map<Integer, List<MotRow>> gtByFrame = byFrame(gt, "ground truth");
        Map<Integer, List<MotRow>> resultsByFrame = byFrame(results, "results");
        Set<Integer> numbers = new TreeSet<>(gtByFrame.keySet());
        numbers.addAll(resultsByFrame.keySet());

        Map<Integer, List<MotRow>> keptGt = new TreeMap<>(), keptResults = new TreeMap<>();
        int ignoredGt = 0, ignoredResults = 0;
        for (int f : numbers) {
            List<MotRow> g = gtByFrame.getOrDefault(f, List.of());
            List<MotRow> r = resultsByFrame.getOrDefault(f, List.of());
            boolean[] zeroMarked = new boolean[g.size()], hidden = new boolean[g.size()];
            boolean anyHidden = false;
            for (int i = 0; i < g.size(); i++) {
                zeroMarked[i] = g.get(i).confidence() == 0;
                hidden[i] = !zeroMarked[i] && g.get(i).visibility() < minVisibility;
                anyHidden |= hidden[i];
            }
            boolean[] dropped = new boolean[r.size()];
            if (anyHidden && !r.isEmpty()) {
                double[][] score = similarity(g, r);
                for (double[] row : score) {
                    for (int j = 0; j < row.length; j++) if (row[j] < IGNORE_MATCH_IOU - EPS) row[j] = 0;
                }
                int[] match = MaxScoreAssignment.solve(score);
                for (int i = 0; i < g.size(); i++) {
                    if (hidden[i] && match[i] >= 0 && score[i][match[i]] > EPS) dropped[match[i]] = true;
                }
            }
            List<MotRow> gk = new ArrayList<>(), rk = new ArrayList<>();
            for (int i = 0; i < g.size(); i++) {
                if (zeroMarked[i] || hidden[i]) ignoredGt++;
                else gk.add(g.get(i));
            }
            for (int j = 0; j < r.size(); j++) {
                if (dropped[j]) ignoredResults++;
                else rk.add(r.get(j));
            }
            keptGt.put(f, gk);
            keptResults.put(f, rk);
        }

        Map<Long, Integer> gtIndex = denseIds(keptGt), trackerIndex = denseIds(keptResults);
        List<Frame> frames = new ArrayList<>();
        for (int f : numbers) {
            List<MotRow> g = keptGt.get(f), r = keptResults.get(f);
            frames.add(new Frame(f, g.stream().mapToInt(x -> gtIndex.get(x.id())).toArray(),
                    r.stream().mapToInt(x -> trackerIndex.get(x.id())).toArray(), similarity(g, r)));
        }
        return new MotSequence(List.copyOf(frames), gtIndex.size(), trackerIndex.size(), ignoredGt, ignoredResults);
    }

    private static Map<Integer, List<MotRow>> byFrame(List<MotRow> rows, String what) {
        Map<Integer, List<MotRow>> out = new TreeMap<>();
        Map<Integer, Set<Long>> seen = new TreeMap<>();
        for (MotRow r : rows) {
            if (!seen.computeIfAbsent(r.frame(), k -> new HashSet<>()).add(r.id())) {
                throw new IllegalArgumentException(what + ": frame " + r.frame() + " has id " + r.id()
                        + " twice (an id is one object, once per frame)");
            }
            out.computeIfAbsent(r.frame(), k -> new ArrayList<>()).add(r);
        }
        return out;
    }

    /** Original ids in ascending order become 0, 1, 2, ... */
    private static Map<Long, Integer> denseIds(Map<Integer, List<MotRow>> byFrame) {
        TreeSet<Long> ids = new TreeSet<>();
        byFrame.values().forEach(rows -> rows.forEach(r -> ids.add(r.id())));
        Map<Long, Integer> index = new TreeMap<>();
        for (long id : ids) index.put(id, index.size());
        return index;
    }

    private static double[][] similarity(List<MotRow> gt, List<MotRow> results) {
        double[][] s = new double[gt.size()][results.size()];
        for (int i = 0; i < gt.size(); i++) {
            for (int j = 0; j < results.size(); j++) {
                MotRow a = gt.get(i), b = results.get(j);
                s[i][j] = a.sameClassAs(b) ? a.iou(b) : 0;
            }
        }
        return s;
    }

    /** Frames in ascending order: those with a ground-truth or result box (after the ignored ones went). */
    public List<Frame> frames() { return frames; }

    public int gtIdCount() { return gtIdCount; }

    public int trackerIdCount() { return trackerIdCount; }

    public int gtBoxes() { return frames.stream().mapToInt(f -> f.gtIds().length).sum(); }

    public int trackerBoxes() { return frames.stream().mapToInt(f -> f.trackerIds().length).sum(); }

    /** Ground-truth boxes left out: conf 0 or less visible than the minimum. */
    public int ignoredGtBoxes() { return ignoredGtBoxes; }

    /** Result boxes left out for matching an ignored ground-truth box. */
    public int ignoredTrackerBoxes() { return ignoredTrackerBoxes; }
}
