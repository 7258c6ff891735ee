package io.argus.tools.tracking;

import io.argus.detector.Box;
import io.argus.tracking.Anchor;
import io.argus.tracking.Line;
import io.argus.tracking.SceneRules;
import io.argus.tracking.SceneWatch;
import io.argus.tracking.Tracked;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many objects of each class crossed a counting line, in and out, counted from MOTChallenge rows by the
 * pipeline's own {@link SceneWatch} (anchor: the bottom centre of the box), frame after frame, each row's id as the
 * track: the same counting serves the ground truth (the true counts of a scripted video) and a tracker's results
 * (what the pipeline counts). Classes are named by {@code classNames} (row class k is classNames[k]).
 */
public record LineCounts(String lineId, Map<String, Integer> in, Map<String, Integer> out) {
    public static LineCounts of(Line line, List<MotRow> rows, List<String> classNames) {
        SceneWatch watch = new SceneWatch("eval", new SceneRules(List.of(), List.of(line), Anchor.BOTTOM_CENTER));
        Map<Integer, List<Tracked>> byFrame = new TreeMap<>();
        for (MotRow r : rows) {
            if (r.classId() < 0 || r.classId() >= classNames.size()) {
                throw new IllegalArgumentException("frame " + r.frame() + ", id " + r.id() + ": class " + r.classId()
                        + " is none of the " + classNames.size() + " classes " + classNames);
            }
            byFrame.computeIfAbsent(r.frame(), k -> new ArrayList<>()).add(new Tracked(r.id(), r.classId(),
                    classNames.get(r.classId()), (float) r.confidence(), new Box((float) r.left(), (float) r.top(),
                    (float) r.width(), (float) r.height())));
        }
        // the line is in pixels already: the frame size only matters to lines given as fractions of it
        byFrame.forEach((frame, objects) -> watch.update(frame, 1, 1, objects, List.of()));
        Map<String, Integer> in = new TreeMap<>(), out = new TreeMap<>();
        for (String name : classNames) {
            int i = watch.crossings(line.id(), name, Line.Direction.IN), o = watch.crossings(line.id(), name, Line.Direction.OUT);
            if (i > 0) in.put(name, i);
            if (o > 0) out.put(name, o);
        }
        return new LineCounts(line.id(), in, out);
    }

    public int in(String className) { return in.getOrDefault(className, 0); }

    public int out(String className) { return out.getOrDefault(className, 0); }

    public int totalIn() { return in.values().stream().mapToInt(Integer::intValue).sum(); }

    public int totalOut() { return out.values().stream().mapToInt(Integer::intValue).sum(); }
}
