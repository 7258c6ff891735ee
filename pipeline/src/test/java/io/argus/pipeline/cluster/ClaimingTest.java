package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import java.util.Map;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * Claiming cameras ({@link Claiming}) over a map in memory with a clock moved by hand: which cameras a survey may
 * claim (never leased, released, left by a dead owner, unchanged for a whole lease; not one released to another live
 * heir; a suspect lease only as {@link LeaseTrust} allows), claims up to the share, exactly one winner of a race, a
 * claim landing after a split given back, a camera that cannot run here left alone for a while. Pure (no Vert.x).
 * Budget: 3 s (measured 0.9-2.4 s: run first, it loads the sealing and Vert.x classes).
 */
@Budget(seconds = 5)
class ClaimingTest {
    private final OwnershipParts.Clock clock = new OwnershipParts.Clock();
    private final MemoryMap map = new MemoryMap();
    private final OwnershipParts n1 = new OwnershipParts("n1", map, clock, List.of("n1", "n2", "n3"));
    private final OwnershipParts n2 = new OwnershipParts("n2", map, clock, List.of("n1", "n2", "n3"));
    private static final Map<String, JsonObject> ONE = OwnershipParts.cameras("cam1");

    @Test
    void aCameraNeverLeasedIsClaimedAtEpochOneStartedAndPublished() {
        n1.control.answerAtOnce = false;
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.STARTING, n1.phase("cam1"));
        assertEquals(new Lease("n1", 1, clock.millis + OwnershipParts.LEASE_MS, ""), n1.lease("cam1"));
        assertEquals(1, n1.held.get("cam1").epoch(), "published from the claim on");
        n1.control.answer("add cam1");
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
    }

    @Test
    void claimsStopAtTheShare() {
        n1.survey(OwnershipParts.cameras("a", "b", "c", "d"), 2);
        assertEquals(2, n1.held.size());
        assertEquals(2, n1.table.holding().size());
    }

    @Test
    void ofTwoNodesClaimingAtOnceExactlyOneWinsAndTheOtherKeepsNoEntry() {
        List<Claiming.Claim> first = n1.claimable(ONE);
        List<Claiming.Claim> second = n2.claimable(ONE);
        map.deferring = true;
        n1.claiming.claim(first, 1);
        n2.claiming.claim(second, 1);
        assertEquals(CameraPhase.CLAIMING, n1.phase("cam1"));
        assertEquals(CameraPhase.CLAIMING, n2.phase("cam1"));
        map.flush();
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(CameraPhase.FREE, n2.phase("cam1"));
        assertEquals(0, n2.table.size());
        assertEquals(List.of(), n2.control.asked, "the loser started nothing");
    }

    @Test
    void aLeaseSeenForTheFirstTimeIsClaimedNoSoonerThanTheNextSurvey() {
        n2.write("cam1", Lease.first("n2", 0).released());
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "it may be an old lease put back: its holder rewrites it first");
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(2, n1.lease("cam1").epoch(), "claimed after the released lease: the next epoch");
    }

    @Test
    void aCameraReleasedToAnotherLiveHeirIsLeftToItUnlessTheHeirLeft() {
        n2.write("cam1", Lease.first("n3", 0).releasedTo("n2"));
        n1.survey(ONE, 1);
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "left to n2, a member");
        n1.members = List.of("n1", "n3");
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"), "its heir left the cluster");
    }

    @Test
    void aCameraOfALiveOwnerIsClaimedOnlyOnceItsLeaseStayedTheSameForAWholeLeaseOrItsOwnerLeft() {
        n2.write("cam1", Lease.first("n2", 0));
        n1.survey(ONE, 1);
        clock.advanceMs(OwnershipParts.LEASE_MS - 1);
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "unchanged for less than a lease");
        clock.advanceMs(1);
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"), "not renewed for a whole lease of n1's own clock");

        n1.write("cam2", Lease.first("n3", 0));
        Map<String, JsonObject> two = OwnershipParts.cameras("cam1", "cam2");
        n1.survey(two, 2);
        assertEquals(CameraPhase.FREE, n1.phase("cam2"));
        n1.members = List.of("n1", "n2");
        n1.survey(two, 2);
        assertEquals(CameraPhase.HELD, n1.phase("cam2"), "its owner is no member any more: at once");
    }

    @Test
    void aGarbledLeaseOfUnknownHistoryIsClaimedOnlyOnceItStayedForAWholeLease() {
        map.values.put("cam1", "argus1:garbage");
        n1.survey(ONE, 1);
        clock.advanceMs(OwnershipParts.LEASE_MS - 1);
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "its holder, if any, would have rewritten it");
        clock.advanceMs(1);
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(1, n1.lease("cam1").epoch(), "after every epoch this node saw (none)");
    }

    @Test
    void aCameraThatCannotStartHereGivesItsLeaseBackAndIsLeftAloneForAWhile() {
        n1.control.cannotRun.add("cam1");
        n1.survey(ONE, 1);
        assertEquals(CameraPhase.UNRUNNABLE, n1.phase("cam1"));
        assertNull(n1.held.get("cam1"));
        assertTrue(n1.lease("cam1").free(), "released for another node");
        clock.advanceMs(1_000);
        assertEquals(List.of(), n1.survey(ONE, 1), "not tried again within 10 s");
        clock.advanceMs(9_001);
        assertEquals(1, n1.survey(ONE, 1).size(), "tried again after 10 s");
    }

    @Test
    void aCameraWhoseModelIsNotServedHereIsNeverClaimed() {
        n1.unfit.add("cam1");
        assertEquals(List.of(), n1.survey(ONE, 1));
        assertEquals(CameraPhase.UNRUNNABLE, n1.phase("cam1"));
        assertTrue(n1.control.asked.isEmpty());
        assertNull(n1.lease("cam1"), "nothing was written");
    }

    @Test
    void aClaimThatLandsAfterThisNodeLostItsMembersIsGivenBack() {
        List<Claiming.Claim> claims = n1.claimable(ONE);
        map.deferring = true;
        n1.claiming.claim(claims, 1);
        n1.members = List.of(); // the compare-and-set waited for unreachable members, then the split
        map.flush();
        assertEquals(CameraPhase.FREE, n1.phase("cam1"));
        assertTrue(n1.lease("cam1").free(), "given back on this side");
        assertTrue(n1.control.asked.isEmpty(), "nothing started");
    }
}
