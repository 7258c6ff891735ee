package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The warm hand-over ({@link HandOver}) between nodes sharing a map in memory, with a clock moved by hand: the heir runs
 * the camera on standby before the owner stops publishing it, the owner releases it only once the heir is ready, the
 * heir takes it over without starting it again, and the two never publish it at once; an offer not taken up within
 * the hand-over time is withdrawn (not while the owner leaves); another node's claim stops the owner, a stranger's
 * deletion is written over; a standby camera whose offer went away is stopped; a leaving node plans, offers and
 * releases. Pure (no Vert.x). Budget: 2 s.
 */
@Budget(seconds = 5)
class HandOverTest {
    private static final List<String> MEMBERS = List.of("n1", "n2", "n3");
    private static final Map<String, JsonObject> CAMERAS = OwnershipParts.cameras("cam1", "cam2");
    private final OwnershipParts.Clock clock = new OwnershipParts.Clock();
    private final MemoryMap map = new MemoryMap();
    private final OwnershipParts n1 = new OwnershipParts("n1", map, clock, MEMBERS);
    private final OwnershipParts n2 = new OwnershipParts("n2", map, clock, MEMBERS);
    private final OwnershipParts n3 = new OwnershipParts("n3", map, clock, MEMBERS);

    /** n1 claims and runs both cameras. */
    private void n1HoldsBoth() {
        n1.survey(CAMERAS, 2);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(CameraPhase.HELD, n1.phase("cam2"));
    }

    /** {@code node} hears the notice about {@code camera}, as the ownership verticle passes it on: lease and entry read. */
    private static void notice(OwnershipParts node, String camera) {
        if (!node.handOver.listens(camera)) return;
        node.handOver.onNotice(camera, node.leases.get(camera).result(), CAMERAS.get(camera));
    }

    /** Nobody publishes {@code camera} twice. */
    private void atMostOnePublisher(String camera) {
        int publishing = (n1.held.get(camera) != null ? 1 : 0) + (n2.held.get(camera) != null ? 1 : 0) + (n3.held.get(camera) != null ? 1 : 0);
        assertTrue(publishing <= 1, camera + " published by " + publishing + " nodes");
    }

    @Test
    void theHeirRunsTheCameraBeforeTheOwnerStopsAndTakesItOverWithoutStartingItAgain() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        assertEquals(CameraPhase.OFFERED, n1.phase("cam1"));
        assertTrue(n1.lease("cam1").offered());
        assertEquals(List.of("n2 cam1"), n1.told, "the heir is told at once");
        assertNotNull(n1.held.get("cam1"), "still published by its owner");

        n2.control.answerAtOnce = false;
        notice(n2, "cam1");
        assertEquals(CameraPhase.PREPARING, n2.phase("cam1"));
        n2.control.answer("add cam1");
        assertEquals(CameraPhase.STANDBY, n2.phase("cam1"));
        assertTrue(n2.lease("cam1").heirReady(), "the heir marked the offer ready");
        assertNull(n2.held.get("cam1"), "on standby: not published");
        atMostOnePublisher("cam1");

        n1.handOver.checkOffers();
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "stopped on the owner");
        assertNull(n1.held.get("cam1"));
        Lease released = n1.lease("cam1");
        assertTrue(released.free() && "n2".equals(released.heir()), "released to the heir: " + released);
        assertEquals(List.of("n2 cam1", "n2 cam1"), n1.told, "and the heir told again");

        notice(n2, "cam1");
        assertEquals(CameraPhase.HELD, n2.phase("cam1"), "taken over warm");
        assertEquals(2, n2.held.get("cam1").epoch());
        assertEquals(List.of("add cam1"), n2.control.asked, "started once, on standby");
        assertEquals(CameraPhase.HELD, n1.phase("cam2"), "the other camera stays");
        atMostOnePublisher("cam1");
    }

    @Test
    void anOfferNotTakenUpInTimeIsWithdrawnAndTheCameraStays() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        clock.advanceMs(OwnershipParts.HANDOVER_MS);
        n1.handOver.checkOffers();
        assertEquals(CameraPhase.OFFERED, n1.phase("cam1"), "not later than the hand-over time yet");
        clock.advanceMs(1);
        n1.handOver.checkOffers();
        assertEquals(CameraPhase.HELD, n1.phase("cam1"), "withdrawn");
        Lease kept = n1.lease("cam1");
        assertFalse(kept.offered());
        assertEquals("n1", kept.owner());
        assertEquals("", kept.heir());
        assertEquals(clock.nanoTime(), n1.table.get("cam1").renewedAt, "renewed as the owner's again");
        assertTrue(n1.control.asked.stream().noneMatch(a -> a.startsWith("remove")), "never stopped: " + n1.control.asked);
    }

    @Test
    void aLeavingNodeWithdrawsNothing() {
        n1HoldsBoth();
        n1.handOver.beginLeaving();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "this node stops");
        clock.advanceMs(OwnershipParts.HANDOVER_MS * 2);
        n1.handOver.checkOffers();
        assertEquals(CameraPhase.OFFERED, n1.phase("cam1"), "what is not handed over is released at the end");
    }

    @Test
    void anotherNodesClaimOfAnOfferedCameraStopsTheOwner() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        n3.write("cam1", n1.lease("cam1").claimedBy("n3", 0));
        n1.handOver.checkOffers();
        assertEquals(CameraPhase.FREE, n1.phase("cam1"));
        assertEquals("n3", n1.lease("cam1").owner(), "nothing written over the claim");
    }

    @Test
    void anOfferedLeaseDeletedByAStrangerIsWrittenBackAsOffered() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        String offer = n1.table.get("cam1").written;
        map.values.remove("cam1");
        n1.handOver.checkOffers();
        assertEquals(CameraPhase.OFFERED, n1.phase("cam1"));
        assertEquals(offer, n1.leases.get("cam1").result(), "the offer stands, for the heir's compare-and-set");
    }

    @Test
    void aStandbyCameraWhoseOfferWasWithdrawnIsStoppedAndWasNeverPublished() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        n2.control.answerAtOnce = false;
        notice(n2, "cam1");
        clock.advanceMs(OwnershipParts.HANDOVER_MS + 1);
        n1.handOver.checkOffers(); // the heir was slow: withdrawn
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        n2.control.answer("add cam1");
        assertEquals(CameraPhase.STANDBY, n2.phase("cam1"));
        assertFalse(n2.lease("cam1").heirReady(), "the late ready mark finds the offer gone");
        n2.control.answerAtOnce = true;
        n2.survey(CAMERAS, 1);
        assertEquals(CameraPhase.FREE, n2.phase("cam1"), "stopped: the offer went away");
        assertEquals(List.of("add cam1", "remove cam1"), n2.control.asked);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        atMostOnePublisher("cam1");
    }

    @Test
    void anHeirDoesNotTakeAnOfferOfAnOwnerThatIsNoMember() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        n2.members = List.of("n2", "n3");
        notice(n2, "cam1");
        assertEquals(CameraPhase.FREE, n2.phase("cam1"));
    }

    @Test
    void aLeavingNodePlansOffersAndCompletesOnceEverythingWasHandedOver() {
        n1HoldsBoth();
        Map<String, JsonObject> directory = Map.of("n1", new JsonObject().put("leaving", true), "n2", new JsonObject(), "n3", new JsonObject());
        n1.handOver.beginLeaving();
        Future<Void> done = n1.handOver.leave(directory, List.of(n1.leases.get("cam1").result(), n1.leases.get("cam2").result()));
        assertEquals("n2", n1.table.get("cam1").plannedHeir);
        assertEquals("n3", n1.table.get("cam2").plannedHeir, "the least loaded members in turn");
        assertEquals(List.of("n2 cam1", "n3 cam2"), n1.told);
        notice(n2, "cam1");
        notice(n3, "cam2");
        assertFalse(n2.handOver.leaving());
        n1.handOver.checkOffers();
        assertTrue(done.succeeded(), "both handed over");
        assertEquals(0, n1.held.size());
        notice(n2, "cam1");
        notice(n3, "cam2");
        assertEquals(CameraPhase.HELD, n2.phase("cam1"));
        assertEquals(CameraPhase.HELD, n3.phase("cam2"));
    }

    @Test
    void aLeavingNodeOffersACameraStillStartingOnceItRunsAndTakesNothingOnStandby() {
        n1.control.answerAtOnce = false;
        n1.survey(CAMERAS, 2);
        n1.control.answer("add cam1");
        n1.handOver.beginLeaving();
        n1.handOver.leave(Map.of("n2", new JsonObject()), List.of());
        assertEquals(List.of("n2 cam1"), n1.told, "cam2 is still starting");
        n1.control.answer("add cam2");
        n1.handOver.offerPlanned(); // the next round
        assertEquals(List.of("n2 cam1", "n2 cam2"), n1.told);

        n2.write("cam3", Lease.first("n2", 0).offeredTo("n1"));
        n1.handOver.startStandby("cam3", n1.leases.get("cam3").result(), new JsonObject().put("id", "cam3"));
        assertEquals(CameraPhase.FREE, n1.phase("cam3"), "a leaving node takes nothing on standby");
    }

    @Test
    void whatIsNotHandedOverIsReleasedTheOfferedToItsHeirTheRestToAnyNode() {
        n1.control.answerAtOnce = false;
        n1.survey(OwnershipParts.cameras("cam1", "cam2", "cam3"), 3);
        n1.control.answer("add cam1");
        n1.control.answer("add cam2");
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        n1.handOver.releaseAll();
        assertEquals(0, n1.held.size(), "nothing more is published");
        assertEquals("n2", n1.lease("cam1").heir());
        assertTrue(n1.lease("cam1").free());
        assertTrue(n1.lease("cam2").free());
        assertEquals("", n1.lease("cam2").heir());
        assertTrue(n1.lease("cam3").free());
        assertEquals(CameraPhase.STOP_AFTER_START, n1.phase("cam3"));
        n1.control.answer("add cam3");
        assertEquals(CameraPhase.STOPPING, n1.phase("cam3"), "stopped as soon as it runs");
    }

    @Test
    void theVerdictsOnAnOffer() {
        n1HoldsBoth();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "rebalancing");
        KnownCameras.Camera c = n1.table.get("cam1");
        String mine = c.written;
        Lease offer = Lease.parse(mine);
        long at = c.offeredAt();
        assertEquals(HandOver.Verdict.WAIT, n1.handOver.judge(c, mine, stored(mine), at + 1));
        assertEquals(HandOver.Verdict.WITHDRAW, n1.handOver.judge(c, mine, stored(mine), at + OwnershipParts.HANDOVER_MS * 1_000_000L + 1));
        assertEquals(HandOver.Verdict.HAND_OVER, n1.handOver.judge(c, mine, stored(offer.ready().text()), at));
        assertEquals(HandOver.Verdict.REWRITE, n1.handOver.judge(c, mine, stored(new Lease("n1", offer.epoch(), 0, "n3", Lease.READY).text()), at),
                "ready, but by another heir than the one offered");
        assertEquals(HandOver.Verdict.TAKEN, n1.handOver.judge(c, mine, stored(offer.claimedBy("n3", 0).text()), at));
        assertEquals(HandOver.Verdict.TAKEN, n1.handOver.judge(c, mine, stored(new Lease("n3", offer.epoch(), 0, "").text()), at),
                "the same epoch under another owner");
        assertEquals(HandOver.Verdict.REWRITE, n1.handOver.judge(c, mine, null, at), "deleted");
        assertEquals(HandOver.Verdict.REWRITE, n1.handOver.judge(c, mine, new SealedMap.Stored<>("cam1", "x", null, "garbage"), at));
        assertEquals(HandOver.Verdict.REWRITE, n1.handOver.judge(c, mine, stored(new Lease("n1", offer.epoch() - 1, 0, "").text()), at),
                "an older lease put back");
    }

    private static SealedMap.Stored<String> stored(String text) { return new SealedMap.Stored<>("cam1", "sealed", text, null); }
}
