package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.publish.EpochFilter;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure rules of camera ownership: fair shares, lease text, expiry by observation, the epoch filter. */
@Budget(seconds = 5)
class LeaseRulesTest {
    @Test
    void sharesAreWeightedAndRoundedUpSoEveryCameraFindsANode() {
        Map<String, Double> three = Map.of("a", 1.0, "b", 1.0, "c", 1.0);
        assertEquals(2, FairShare.of(6, three, "a"));
        assertEquals(3, FairShare.of(7, three, "a"));
        assertEquals(1, FairShare.of(1, three, "b"));
        assertEquals(0, FairShare.of(0, three, "b"));
        Map<String, Double> weighted = Map.of("big", 2.0, "small", 1.0);
        assertEquals(4, FairShare.of(6, weighted, "big"));
        assertEquals(2, FairShare.of(6, weighted, "small"));
        assertEquals(0, FairShare.of(6, weighted, "stranger"), "a node that is not a member runs nothing");
        assertEquals(2, FairShare.floor(7, three, "a"), "rebalancing keeps 7 cameras on 3 nodes at 3/2/2");
        assertEquals(2, FairShare.floor(6, three, "a"));
    }

    @Test
    void leasesKeepTheirEpochWhenReleasedAndCountUpOnEveryClaim() {
        Lease first = Lease.first("n1", 1000);
        assertEquals(1, first.epoch());
        Lease released = first.renewed(2000).released();
        assertTrue(released.free());
        assertEquals(1, released.epoch());
        Lease next = released.claimedBy("n2", 3000);
        assertEquals(new Lease("n2", 2, 3000, ""), next);
        Lease handed = next.releasedTo("n3");
        assertTrue(handed.free());
        assertEquals("n3", handed.heir());
        assertEquals(handed, Lease.parse(handed.text()));
        assertEquals("", handed.claimedBy("n3", 4000).heir(), "a claim clears the heir");
        assertEquals(next, Lease.parse(next.text()));
        assertEquals(next.text(), Lease.parse(next.text()).text(), "the stored text is stable: compare-and-set compares it");
    }

    @Test
    void aLeaseExpiresWhenItsTextStaysTheSameForAWholeLease() {
        LeaseWatch w = new LeaseWatch(1000);
        long ms = 1_000_000L;
        assertFalse(w.expired("cam", "v1", 0));
        assertFalse(w.expired("cam", "v1", 999 * ms));
        assertFalse(w.expired("cam", "v2", 1500 * ms), "renewed: the clock starts again");
        assertFalse(w.expired("cam", "v2", 2400 * ms));
        assertTrue(w.expired("cam", "v2", 2500 * ms));
    }

    @Test
    void theEpochFilterDropsAFormerOwnersLateMessages() throws Exception {
        EpochFilter f = new EpochFilter(200);
        assertTrue(f.accept(msg("cam", "n1", 1)));
        assertTrue(f.accept(msg("cam", "n2", 2)), "a newer epoch wins");
        assertFalse(f.accept(msg("cam", "n1", 1)), "the former owner's late message");
        assertTrue(f.accept(msg("cam", "n2", 2)));
        assertTrue(f.accept(msg("other", "n1", 1)), "per camera");
        assertTrue(f.accept(new JsonObject().put("cameraId", "cam")), "no epoch: a single node");
        assertEquals(1, f.dropped());
        Pace.holdMillis(250, "the newest owner silent for longer than the filter's 200 ms");
        assertTrue(f.accept(msg("cam", "n3", 1)), "the newest fell silent: the epoch counter restarted (lease map lost)");
    }

    @Test
    void aNewerEpochsBacklogCapturedBeforeTheLastDeliveredFrameIsDropped() throws Exception {
        EpochFilter f = new EpochFilter(200);
        assertTrue(f.accept(msg("cam", "n3", 2).put("captureTime", 10_000.0)));
        assertTrue(f.accept(msg("cam", "n3", 2).put("captureTime", 10_100.0)), "the old owner, still streaming");
        // after a partition heals, the new owner's messages held back since the cut arrive, captured from 6,300 ms on
        assertFalse(f.accept(msg("cam", "n2", 3).put("captureTime", 6_300.0)), "captured before the last delivered frame");
        assertFalse(f.accept(msg("cam", "n2", 3).put("captureTime", 10_100.0)), "not after it either");
        assertTrue(f.accept(msg("cam", "n2", 3).put("captureTime", 10_200.0)), "the new owner's frames from then on");
        assertFalse(f.accept(msg("cam", "n3", 2).put("captureTime", 10_300.0)), "the old owner's late message, as before");
        assertTrue(f.accept(msg("cam", "n2", 3).put("captureTime", 10_150.0)), "one owner's own frames are not reordered");
        assertEquals(3, f.dropped());
        // a new owner whose clock is behind loses its first frames for at most the filter's 200 ms
        assertTrue(f.accept(msg("cam", "n1", 4).put("captureTime", 5_000.0)) == false);
        Pace.holdMillis(250, "longer than the filter's 200 ms");
        assertTrue(f.accept(msg("cam", "n1", 4).put("captureTime", 5_040.0)), "taken after forgetMs whatever its clock says");
        assertTrue(f.accept(msg("cam", "n1", 4).put("captureTime", 5_080.0)));
        assertTrue(f.accept(msg("other", "n1", 4).put("captureTime", 1.0)), "per camera");
    }

    private static JsonObject msg(String camera, String node, long epoch) {
        return new JsonObject().put("cameraId", camera).put("node", node).put("epoch", epoch);
    }

    @Test
    void framesCapturedBeforeTheLeaseWasTakenAreNotPublished() {
        HeldLeases held = new HeldLeases("n2");
        double before = System.currentTimeMillis() - 50; // in flight on standby while the previous owner published
        held.put("cam", Lease.first("n2", 0).claimedBy("n2", 0));
        io.vertx.core.json.JsonObject old = new io.vertx.core.json.JsonObject().put("captureTime", before);
        io.vertx.core.json.JsonObject fresh = new io.vertx.core.json.JsonObject().put("captureTime", System.currentTimeMillis() + 1.0);
        org.junit.jupiter.api.Assertions.assertFalse(held.stamp("cam", old), "captured before the claim: dropped");
        org.junit.jupiter.api.Assertions.assertTrue(held.stamp("cam", fresh), "captured after: published");
        org.junit.jupiter.api.Assertions.assertEquals(2L, fresh.getLong("epoch"));
        org.junit.jupiter.api.Assertions.assertFalse(held.stamp("other", fresh.copy()), "a camera not held: dropped");
    }
}
