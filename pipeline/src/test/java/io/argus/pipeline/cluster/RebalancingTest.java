package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Where cameras go ({@link Rebalancing}): a node above its share rounded down hands one camera at a time to the member
 * furthest below its own (that wrote its directory entry), only once nothing waits and nothing is in flight; a leaving
 * node plans the least loaded other members in turn. Pure. Budget: 1 s.
 */
@Budget(seconds = 5)
class RebalancingTest {
    private static final List<String> LIVE = List.of("a", "b", "c");
    private static final Map<String, Double> EQUAL = Map.of("a", 1.0, "b", 1.0, "c", 1.0);
    private static final Map<String, JsonObject> DIRECTORY = directory("a", "b", "c");

    @Test
    void aNodeAboveItsShareHandsItsLastCameraToTheMemberFurthestBelowItsOwn() {
        // 7 cameras: a runs 5, b 2, c joined and runs none; floor shares are 2 each
        Map<String, String> leases = leases(Map.of("a", 5, "b", 2));
        Optional<Rebalancing.Move> move = Rebalancing.next(7, cameras("a", 5), leases, LIVE, EQUAL, DIRECTORY, "a", true, true);
        assertEquals("c", move.orElseThrow().heir());
        assertEquals("a-4", move.orElseThrow().camera(), "the last of its cameras by id");
        assertTrue(move.orElseThrow().why().contains("holds 5 of 7"), move.orElseThrow().why());
        // b is at its share: it gives nothing, whatever c lacks
        assertEquals(Optional.empty(), Rebalancing.next(7, cameras("b", 2), leases, LIVE, EQUAL, DIRECTORY, "b", true, true));
    }

    @Test
    void sevenCamerasOnThreeNodesSettleAtThreeTwoTwo() {
        Map<String, String> leases = leases(Map.of("a", 3, "b", 2, "c", 2));
        assertEquals(Optional.empty(), Rebalancing.next(7, cameras("a", 3), leases, LIVE, EQUAL, DIRECTORY, "a", true, true),
                "a holds one above its floor, but nobody is below theirs: no bouncing");
    }

    @Test
    void nothingMovesWhileACameraWaitsForAnOwnerOrSomethingIsInFlight() {
        Map<String, String> leases = leases(Map.of("a", 5, "b", 2));
        assertEquals(Optional.empty(), Rebalancing.next(7, cameras("a", 5), leases, LIVE, EQUAL, DIRECTORY, "a", false, true));
        assertEquals(Optional.empty(), Rebalancing.next(7, cameras("a", 5), leases, LIVE, EQUAL, DIRECTORY, "a", true, false));
    }

    @Test
    void theHeirHasWrittenItsDirectoryEntryIsALiveMemberAndTiesGoToTheSmallestId() {
        Map<String, String> leases = leases(Map.of("a", 6));
        // b and c both lack 2: b is chosen by every node
        assertEquals("b", Rebalancing.next(6, cameras("a", 6), leases, LIVE, EQUAL, DIRECTORY, "a", true, true).orElseThrow().heir());
        // b has not written its entry yet (models still loading): c
        assertEquals("c", Rebalancing.next(6, cameras("a", 6), leases, LIVE, EQUAL, directory("a", "c"), "a", true, true).orElseThrow().heir());
        // a camera owned by a node that left counts for nobody
        Map<String, String> withGone = new TreeMap<>(leases);
        withGone.put("x-0", Lease.first("gone", 0).text());
        assertEquals("b", Rebalancing.next(7, cameras("a", 6), withGone, LIVE, EQUAL, DIRECTORY, "a", true, true).orElseThrow().heir());
    }

    @Test
    void weightsDecideTheShares() {
        Map<String, Double> weighted = Map.of("a", 1.0, "big", 3.0);
        Map<String, String> leases = leases(Map.of("a", 4));
        Optional<Rebalancing.Move> move = Rebalancing.next(4, cameras("a", 4), leases, List.of("a", "big"), weighted,
                directory("a", "big"), "a", true, true);
        assertEquals("big", move.orElseThrow().heir(), "a's floor share of 4 is 1, big's 3");
        assertEquals(Optional.empty(), Rebalancing.next(4, cameras("a", 1), leases(Map.of("a", 1, "big", 3)), List.of("a", "big"),
                weighted, directory("a", "big"), "a", true, true));
    }

    @Test
    void aLeavingNodePlansTheLeastLoadedOtherMembersInTurn() {
        Map<String, JsonObject> dir = directory("a", "b", "c");
        List<String> loads = new ArrayList<>(leases(Map.of("b", 1)).values());
        Map<String, String> plan = Rebalancing.heirs(List.of("a-2", "a-0", "a-1"), LIVE, dir, loads, "a");
        assertEquals(Map.of("a-0", "c", "a-1", "b", "a-2", "c"), plan, "c runs none, b one: c, then b (ties: smallest id), then c");
    }

    @Test
    void aLeavingNodeHandsNothingToMembersThatLeaveTooOrHaveNoEntry() {
        Map<String, JsonObject> dir = directory("a", "b");
        dir.put("b", dir.get("b").copy().put("leaving", true));
        assertEquals(Map.of(), Rebalancing.heirs(List.of("a-0"), LIVE, dir, List.of(), "a"), "b leaves, c wrote no entry");
        assertEquals(Map.of("a-0", "c"), Rebalancing.heirs(List.of("a-0"), LIVE, directory("a", "c"), List.of(), "a"));
        assertEquals(Map.of(), Rebalancing.heirs(List.of(), LIVE, DIRECTORY, List.of(), "a"), "nothing to hand over");
    }

    /** {@code count} cameras of {@code node}: node-0, node-1, ... */
    private static Set<String> cameras(String node, int count) {
        Set<String> out = new java.util.TreeSet<>();
        for (int i = 0; i < count; i++) out.add(node + "-" + i);
        return out;
    }

    /** The leases of each node's cameras (owned, epoch 1). */
    private static Map<String, String> leases(Map<String, Integer> counts) {
        Map<String, String> out = new TreeMap<>();
        counts.forEach((node, n) -> cameras(node, n).forEach(c -> out.put(c, Lease.first(node, 0).text())));
        return out;
    }

    private static Map<String, JsonObject> directory(String... nodes) {
        Map<String, JsonObject> out = new TreeMap<>();
        for (String n : nodes) out.put(n, new JsonObject().put("id", n).put("weight", 1.0));
        return out;
    }
}
