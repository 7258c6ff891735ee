package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Keeping the leases this node holds ({@link LeaseKeeping}), over a map in memory with a clock moved by hand: a renewal
 * rewrites the lease with a later expiry; a camera whose renewals have not succeeded for a whole lease is stopped
 * (fenced) even though the map never answers, not a moment sooner; another node's claim stops the camera; a lease a
 * stranger deleted, garbled or replayed is written again and the camera stays. Pure (no Vert.x). Budget: 2 s.
 */
@Budget(seconds = 5)
class LeaseKeepingTest {
    private final OwnershipParts.Clock clock = new OwnershipParts.Clock();
    private final MemoryMap map = new MemoryMap();
    private final OwnershipParts n1 = new OwnershipParts("n1", map, clock, List.of("n1", "n2"));

    /** n1 claims cam1 (never leased) and runs it. */
    private void n1Holds() {
        n1.survey(OwnershipParts.cameras("cam1"), 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
    }

    @Test
    void aRenewalWritesALaterExpiryAndKeepsTheEpoch() {
        n1Holds();
        Lease before = n1.lease("cam1");
        clock.advanceMs(500);
        n1.keeping.renewAll(clock.nanoTime());
        Lease after = n1.lease("cam1");
        assertEquals(before.epoch(), after.epoch());
        assertEquals(before.expires() + 500, after.expires());
        assertEquals(after.text(), n1.table.get("cam1").written, "the next compare-and-set expects what was written");
        assertEquals(clock.nanoTime(), n1.table.get("cam1").renewedAt);
    }

    @Test
    void aCameraWhoseRenewalsDoNotSucceedForAWholeLeaseIsStoppedThoughTheMapNeverAnswers() {
        n1Holds();
        long claimed = n1.table.get("cam1").renewedAt;
        n1.control.answerAtOnce = false;
        map.unreachable = true; // a hung member: every renewal waits forever
        for (int ms = 0; ms < OwnershipParts.LEASE_MS - 500; ms += 500) {
            clock.advanceMs(500);
            n1.keeping.fence(clock.nanoTime());
            n1.keeping.renewAll(clock.nanoTime());
        }
        clock.nanos = claimed + OwnershipParts.LEASE_MS * 1_000_000L - 1;
        n1.keeping.fence(clock.nanoTime());
        assertEquals(CameraPhase.HELD, n1.phase("cam1"), "a nanosecond before the lease is up it still runs");
        assertNotNull(n1.held.get("cam1"));
        clock.nanos += 1;
        n1.keeping.fence(clock.nanoTime());
        assertEquals(CameraPhase.STOPPING, n1.phase("cam1"), "fenced: stopped before any observer may take the lease");
        assertNull(n1.held.get("cam1"), "nothing more is published");
        assertEquals("remove cam1", n1.control.asked.get(n1.control.asked.size() - 1));
    }

    @Test
    void anotherNodesClaimStopsTheCamera() {
        n1Holds();
        Lease mine = n1.lease("cam1");
        n1.write("cam1", mine.claimedBy("n2", 0)); // n2 took it (its lease expired there, say)
        n1.keeping.renewAll(clock.nanoTime());
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "stopped (the supervisor answered at once)");
        assertNull(n1.held.get("cam1"));
        assertEquals("n2", n1.lease("cam1").owner(), "n1 wrote nothing over n2's claim");
        assertTrue(n1.control.asked.contains("remove cam1"));
    }

    @Test
    void aLeaseDeletedByAStrangerIsWrittenAgainAndTheCameraStays() {
        n1Holds();
        Lease mine = n1.lease("cam1");
        map.values.remove("cam1");
        clock.advanceMs(500);
        n1.keeping.renewAll(clock.nanoTime());
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(mine.renewed(mine.expires() + 500), n1.lease("cam1"), "written again, the same claim renewed");
        assertTrue(n1.table.get("cam1").rewriteLogged, "said (once)");
        assertEquals(clock.nanoTime(), n1.table.get("cam1").renewedAt, "a rewrite counts as a renewal for the fence");
        assertFalse(n1.control.asked.contains("remove cam1"), n1.control.asked.toString());
    }

    @Test
    void aLeaseGarbledByAStrangerIsWrittenAgainAndTheCameraStays() {
        n1Holds();
        long epoch = n1.lease("cam1").epoch();
        map.values.put("cam1", "argus1:garbage");
        n1.keeping.renewAll(clock.nanoTime());
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(epoch, n1.lease("cam1").epoch());
        assertEquals("n1", n1.lease("cam1").owner());
        assertFalse(n1.control.asked.contains("remove cam1"), n1.control.asked.toString());
    }

    @Test
    void anOlderLeasePutBackIsNoClaimAndIsWrittenOver() {
        // n2 held cam1 (epoch 1) and released it; n1 claimed it (epoch 2)
        OwnershipParts n2 = new OwnershipParts("n2", map, clock, List.of("n1", "n2"));
        n2.survey(OwnershipParts.cameras("cam1"), 1);
        Object n2sLease = map.values.get("cam1");
        n2.keeping.releaseUnlisted(Set.of());
        n1.survey(OwnershipParts.cameras("cam1"), 1);
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "a lease seen for the first time is claimed a survey later");
        n1.survey(OwnershipParts.cameras("cam1"), 1);
        assertEquals(CameraPhase.HELD, n1.phase("cam1"));
        assertEquals(2, n1.lease("cam1").epoch());

        map.values.put("cam1", n2sLease); // n2's sealed epoch-1 lease, replayed by someone who recorded it
        assertEquals("n2", n1.lease("cam1").owner(), "it opens: sealing alone cannot tell it is old");
        n1.keeping.renewAll(clock.nanoTime());
        assertEquals(CameraPhase.HELD, n1.phase("cam1"), "an older epoch is no other node's claim");
        assertEquals("n1", n1.lease("cam1").owner());
        assertEquals(2, n1.lease("cam1").epoch());
        assertFalse(n1.control.asked.contains("remove cam1"), n1.control.asked.toString());
    }

    @Test
    void anOfferedLeaseIsNotRenewed() {
        n1Holds();
        n1.handOver.offer(n1.table.get("cam1"), "n2", "test");
        String offered = n1.table.get("cam1").written;
        clock.advanceMs(500);
        n1.keeping.renewAll(clock.nanoTime());
        assertEquals(offered, n1.leases.get("cam1").result(), "the heir answers against the offer's very text");
    }

    @Test
    void aCameraRemovedFromTheListStopsAndItsLeaseIsReleasedKeepingItsEpoch() {
        n1Holds();
        long epoch = n1.lease("cam1").epoch();
        n1.keeping.releaseUnlisted(Set.of("cam2"));
        assertEquals(CameraPhase.FREE, n1.phase("cam1"));
        assertTrue(n1.lease("cam1").free());
        assertEquals(epoch, n1.lease("cam1").epoch());
    }

    @Test
    void aRenewalInFlightIsNotDoubledAndAStopMeanwhileWinsOverItsCompletion() {
        n1Holds();
        map.deferring = true;
        n1.keeping.renewAll(clock.nanoTime());
        assertTrue(n1.table.get("cam1").leaseWriteInFlight);
        n1.keeping.renewAll(clock.nanoTime()); // the next round: the first is still in flight
        n1.local.stop(n1.table.get("cam1"), "test");
        map.flush();
        assertEquals(CameraPhase.FREE, n1.phase("cam1"), "the renewal's late success brings nothing back");
        assertNull(n1.held.get("cam1"));
    }
}
