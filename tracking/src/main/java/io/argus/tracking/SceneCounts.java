package io.argus.tracking;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A camera's counters: objects inside each zone now and crossings of each line, per class, and which of them the last
 * update changed (only those are published). A class appears once it has been counted and stays, at 0 if need be, so
 * that going back to 0 is published too.
 */
final class SceneCounts {
    private final Map<String, TreeMap<String, SceneCount>> byRule = new HashMap<>();   // rule id -> class -> count
    private final Map<List<String>, SceneCount> beforeUpdate = new LinkedHashMap<>();  // [rule id, class] -> value at start

    /** Forgets what the previous update changed. */
    void startUpdate() { beforeUpdate.clear(); }

    void entered(String zone, String className) { addInside(zone, className, +1); }

    void left(String zone, String className) { addInside(zone, className, -1); }

    void crossed(String line, String className, Line.Direction direction) {
        SceneCount c = current(line, className);
        int in = c == null ? 0 : c.in(), out = c == null ? 0 : c.out();
        set(line, className, SceneCount.ofLine(line, className, in + (direction == Line.Direction.IN ? 1 : 0),
                out + (direction == Line.Direction.OUT ? 1 : 0)));
    }

    private void addInside(String zone, String className, int delta) {
        SceneCount c = current(zone, className);
        set(zone, className, SceneCount.ofZone(zone, className, Math.max(0, (c == null ? 0 : c.inside()) + delta)));
    }

    private SceneCount current(String rule, String className) {
        TreeMap<String, SceneCount> perClass = byRule.get(rule);
        return perClass == null ? null : perClass.get(className);
    }

    private void set(String rule, String className, SceneCount value) {
        beforeUpdate.putIfAbsent(List.of(rule, className), Objects.requireNonNullElse(current(rule, className), zero(value)));
        byRule.computeIfAbsent(rule, r -> new TreeMap<>()).put(className, value);
    }

    private static SceneCount zero(SceneCount like) {
        return like.isZone() ? SceneCount.ofZone(like.zone(), like.className(), 0) : SceneCount.ofLine(like.line(), like.className(), 0, 0);
    }

    /** Drops the counters of a zone or line that is gone. */
    void forget(String rule) {
        byRule.remove(rule);
        beforeUpdate.keySet().removeIf(k -> k.get(0).equals(rule));
    }

    /** Every counter, zones then lines in the rules' order, classes by name. */
    List<SceneCount> all(SceneRules rules) {
        List<SceneCount> out = new ArrayList<>();
        for (Zone z : rules.zones()) out.addAll(byRule.getOrDefault(z.id(), new TreeMap<>()).values());
        for (Line l : rules.lines()) out.addAll(byRule.getOrDefault(l.id(), new TreeMap<>()).values());
        return out;
    }

    /** The counters whose value the last update changed, in the order of {@link #all}. */
    List<SceneCount> changed(SceneRules rules) {
        List<SceneCount> out = new ArrayList<>();
        for (SceneCount c : all(rules)) {
            SceneCount before = beforeUpdate.get(List.of(c.ruleId(), c.className()));
            if (before != null && !before.equals(c)) out.add(c);
        }
        return out;
    }

    SceneCount get(String rule, String className) { return current(rule, className); }
}
