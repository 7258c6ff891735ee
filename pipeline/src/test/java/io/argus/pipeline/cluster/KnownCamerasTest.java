package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.cluster.KnownCameras.Camera;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The phases of a camera as a node sees it ({@link CameraPhase}, {@link KnownCameras}): exactly the transitions the
 * phase allows are made, any other is refused loudly and changes nothing; the lease is in {@link HeldLeases} exactly
 * while the phase holds it; a camera that goes back to free has no entry. Pure (no Vert.x). Budget: 3 s (measured
 * 0.85-2.0 s: each of the 97 refused transitions is logged with its stack trace).
 */
@Budget(seconds = 5)
class KnownCamerasTest {
    private final HeldLeases held = new HeldLeases("n1");
    private final KnownCameras table = new KnownCameras(held);
    private static final Lease LEASE = Lease.first("n1", 0);

    @Test
    void aClaimedCameraIsPublishedExactlyWhileItsPhaseHoldsTheLease() {
        Camera c = table.enter("cam1", CameraPhase.CLAIMING);
        assertEquals(CameraPhase.CLAIMING, table.phase("cam1"));
        assertNull(held.get("cam1"), "claiming: nothing is published yet");
        table.hold(c, CameraPhase.STARTING, LEASE, LEASE.text(), 5);
        assertEquals(LEASE, held.get("cam1"), "the claim is won: published from now on");
        assertEquals(LEASE.text(), c.written);
        assertEquals(5, c.renewedAt);
        table.move(c, CameraPhase.HELD);
        table.offered(c, "n2", 7);
        assertEquals("n2", c.offeredTo());
        assertEquals(7, c.offeredAt());
        assertEquals(LEASE, held.get("cam1"), "offered: still published here until the heir is ready");
        table.move(c, CameraPhase.STOPPING);
        assertNull(held.get("cam1"), "stopping: nothing more is published");
        assertNull(c.written, "what was written is forgotten: a late renewal's completion finds nothing to update");
        assertNull(c.offeredTo());
        table.move(c, CameraPhase.FREE);
        assertNull(table.get("cam1"), "free: no entry");
        assertEquals(CameraPhase.FREE, table.phase("cam1"));
        assertEquals(0, table.size());
    }

    @Test
    void everyAllowedTransitionIsMadeAndEveryOtherIsRefusedAndChangesNothing() {
        int made = 0;
        int refused = 0;
        for (CameraPhase from : CameraPhase.values()) {
            for (CameraPhase to : CameraPhase.values()) {
                KnownCameras t = new KnownCameras(new HeldLeases("n1"));
                Camera c = reach(t, "cam1", from);
                if (from.next().contains(to)) {
                    transition(t, c, from, to);
                    assertEquals(to, t.phase("cam1"), from + " -> " + to);
                    made++;
                } else {
                    assertThrows(IllegalStateException.class, () -> transition(t, c, from, to), from + " -> " + to + " must be refused");
                    assertEquals(from, t.phase("cam1"), "a refused transition changes nothing: " + from + " -> " + to);
                    refused++;
                }
            }
        }
        int n = CameraPhase.values().length;
        assertEquals(n * n, made + refused);
        assertEquals(24, made, "the transitions of camera ownership (CameraPhase.next)");
    }

    @Test
    void aCameraKnownAlreadyCannotBeEnteredAgainNorCanAFormerEntryMove() {
        Camera c = table.enter("cam1", CameraPhase.CLAIMING);
        assertThrows(IllegalStateException.class, () -> table.enter("cam1", CameraPhase.CLAIMING), "two claims of one camera at once");
        assertThrows(IllegalStateException.class, () -> table.unrunnable("cam1", 1));
        table.move(c, CameraPhase.FREE);
        Camera again = table.enter("cam1", CameraPhase.CLAIMING);
        assertThrows(IllegalStateException.class, () -> table.move(c, CameraPhase.FREE), "a completion of the former claim moves nothing");
        assertEquals(again, table.get("cam1"));
        assertThrows(IllegalStateException.class, () -> table.move(again, CameraPhase.STARTING), "a claim takes the lease through hold");
    }

    @Test
    void anUnrunnableCameraIsFreeAgainOnlyOnceItsTimeIsUp() {
        table.unrunnable("cam1", 100);
        table.unrunnable("cam2", 300);
        table.expireUnrunnable(100);
        assertEquals(CameraPhase.UNRUNNABLE, table.phase("cam1"), "not before its time");
        table.expireUnrunnable(200);
        assertEquals(CameraPhase.FREE, table.phase("cam1"));
        assertNull(table.get("cam1"));
        assertEquals(CameraPhase.UNRUNNABLE, table.phase("cam2"));
        assertEquals(300, table.get("cam2").unrunnableUntil());
    }

    @Test
    void queriesSeeThePhases() {
        Camera a = reach(table, "a", CameraPhase.HELD);
        reach(table, "b", CameraPhase.STARTING);
        reach(table, "c", CameraPhase.STANDBY);
        assertEquals(List.of("a", "b"), ids(table.holding()));
        assertEquals(List.of("c"), ids(table.in(CameraPhase.STANDBY)));
        assertTrue(table.anyBusy(), "b is starting");
        assertTrue(table.any(CameraPhase.HELD));
        assertTrue(table.current(a));
        assertEquals(2, held.size());
    }

    private static List<String> ids(List<Camera> cameras) {
        List<String> out = new ArrayList<>();
        for (Camera c : cameras) out.add(c.id);
        return out;
    }

    /** Makes {@code from} -> {@code to} by the table's method for it. */
    private static void transition(KnownCameras t, Camera c, CameraPhase from, CameraPhase to) {
        if (from == CameraPhase.FREE) {
            if (to == CameraPhase.UNRUNNABLE) t.unrunnable("cam1", 1);
            else t.enter("cam1", to);
        } else if (to.holdsLease() && !from.holdsLease()) {
            t.hold(c, to, LEASE, LEASE.text(), 1);
        } else if (to == CameraPhase.OFFERED) {
            t.offered(c, "n2", 1);
        } else if (to == CameraPhase.UNRUNNABLE) {
            t.failedToStart(c, 1);
        } else {
            t.move(c, to);
        }
    }

    /** A camera brought to {@code phase} along allowed transitions; null for free. */
    static Camera reach(KnownCameras t, String id, CameraPhase phase) {
        switch (phase) {
            case FREE -> { return null; }
            case UNRUNNABLE -> {
                t.unrunnable(id, Long.MAX_VALUE);
                return t.get(id);
            }
            case CLAIMING, PREPARING -> { return t.enter(id, phase); }
            default -> { }
        }
        if (phase == CameraPhase.STANDBY || phase == CameraPhase.TAKING_OVER) {
            Camera c = t.enter(id, CameraPhase.PREPARING);
            t.move(c, CameraPhase.STANDBY);
            if (phase == CameraPhase.TAKING_OVER) t.move(c, CameraPhase.TAKING_OVER);
            return c;
        }
        Camera c = t.enter(id, CameraPhase.CLAIMING);
        t.hold(c, CameraPhase.STARTING, LEASE, LEASE.text(), 1);
        switch (phase) {
            case STARTING -> { }
            case STOP_AFTER_START -> t.move(c, CameraPhase.STOP_AFTER_START);
            case HELD -> t.move(c, CameraPhase.HELD);
            case OFFERED -> {
                t.move(c, CameraPhase.HELD);
                t.offered(c, "n2", 1);
            }
            case STOPPING -> {
                t.move(c, CameraPhase.HELD);
                t.move(c, CameraPhase.STOPPING);
            }
            default -> throw new AssertionError(phase);
        }
        assertNotNull(c);
        return c;
    }
}
