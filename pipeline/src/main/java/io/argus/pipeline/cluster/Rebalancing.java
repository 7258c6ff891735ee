package io.argus.pipeline.cluster;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where cameras should go, decided from a survey, without side effects: which camera a node above its share hands
 * to which node below its own (a node joined), and, when a node leaves, which member takes over each of its cameras.
 * The moves themselves are warm hand-overs ({@link HandOver}).
 */
final class Rebalancing {
    private Rebalancing() {}

    /** Hand {@code camera} over to {@code heir}; {@code why} is said in the log. */
    record Move(String camera, String heir, String why) {}

    /**
     * The one camera {@code me} hands over this round, if any: only while it holds more than its share rounded down
     * ({@link FairShare#floor}) and another member that wrote its directory entry holds less than its own; only once
     * no camera waits for an owner ({@code noneWaiting}) and nothing is in flight here ({@code quiet}: no camera
     * starting or stopping, no offer out), so a joining node takes over gradually. The heir is the member furthest below
     * its share (ties: the smallest id, so every node picks the same); the camera the last of {@code mine} by id.
     *
     * @param leaseTexts the believed leases: camera id to lease text
     * @param directory  the node directory: a member without an entry has not loaded its models yet (or lacks the
     *                   cluster secret) and is given nothing
     */
    static Optional<Move> next(int cameras, Collection<String> mine, Map<String, String> leaseTexts, List<String> live,
                               Map<String, Double> weights, Map<String, JsonObject> directory, String me,
                               boolean noneWaiting, boolean quiet) {
        if (!noneWaiting || !quiet || mine.size() <= FairShare.floor(cameras, weights, me)) return Optional.empty();
        Map<String, Integer> owned = new HashMap<>();
        for (String t : leaseTexts.values()) {
            Lease l = Lease.parse(t);
            if (!l.free() && live.contains(l.owner())) owned.merge(l.owner(), 1, Integer::sum);
        }
        String heir = null;
        int deficit = 0;
        for (String m : new TreeSet<>(live)) {
            int d = FairShare.floor(cameras, weights, m) - owned.getOrDefault(m, 0);
            if (!m.equals(me) && directory.containsKey(m) && d > deficit) {
                heir = m;
                deficit = d;
            }
        }
        if (heir == null) return Optional.empty();
        String camera = new TreeSet<>(mine).last();
        return Optional.of(new Move(camera, heir, "rebalancing: this node holds " + mine.size() + " of " + cameras
                + " cameras, node " + heir + " fewer than its share"));
    }

    /**
     * A leaving node's plan: for each of {@code mine} (by id) the least loaded other member in turn (ties: the
     * smallest id), counting the cameras each owns in {@code leaseTexts} and those planned onto it. Only members that
     * wrote their directory entry and are not leaving themselves: an entry is sealed, so they hold the cluster secret
     * (a bare Hazelcast member would never take the camera up), and their models are loaded. Empty when no member can
     * take any camera.
     */
    static Map<String, String> heirs(Collection<String> mine, List<String> members, Map<String, JsonObject> directory,
                                     Collection<String> leaseTexts, String me) {
        List<String> heirs = new ArrayList<>();
        for (String m : members) {
            JsonObject e = directory.get(m);
            if (!m.equals(me) && e != null && !e.getBoolean("leaving", false)) heirs.add(m);
        }
        Map<String, String> plan = new TreeMap<>();
        if (heirs.isEmpty()) return plan;
        Map<String, Integer> load = new HashMap<>();
        for (String h : heirs) load.put(h, 0);
        for (String t : leaseTexts) load.computeIfPresent(Lease.parse(t).owner(), (k, n) -> n + 1);
        for (String camera : new TreeSet<>(mine)) {
            String heir = heirs.stream().min(Comparator.comparingInt((String h) -> load.get(h)).thenComparing(h -> h)).orElseThrow();
            load.merge(heir, 1, Integer::sum);
            plan.put(camera, heir);
        }
        return plan;
    }
}
