package io.argus.pipeline.video.nvdec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The turns between creating NVDEC sessions and decoding: creations wait for the sends in progress and take
 * precedence over new ones, a few at a time, and no turn is waited for past the gate's patience.
 */
@Budget(seconds = 10)
class SessionGateTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aCreationWaitsForTheSendsInProgressAndHoldsNewOnesBack() throws Exception {
        SessionGate gate = new SessionGate(LONG);
        gate.beginSending();                      // a decoder inside NVDEC
        CountDownLatch created = new CountDownLatch(1);
        Thread creator = start(() -> {
            gate.beginCreating();
            created.countDown();
        });
        awaitBlocked(creator);
        assertEquals(1, created.getCount(), "the creation must wait for the send in progress");

        CountDownLatch sent = new CountDownLatch(1);
        Thread sender = start(() -> {
            gate.beginSending();
            sent.countDown();
        });
        awaitBlocked(sender);
        assertEquals(1, sent.getCount(), "a new send must wait while a creation is waiting");

        gate.endSending();                        // the send in progress ends: the creation goes first
        assertTrue(created.await(10, TimeUnit.SECONDS), "the creation went once the send ended");
        awaitBlocked(sender);
        assertEquals(1, sent.getCount(), "a new send must wait while a session is being created");

        gate.endCreating();
        assertTrue(sent.await(10, TimeUnit.SECONDS), "sends resume once no creation is left");
        gate.endSending();
        creator.join(10_000);
        sender.join(10_000);
    }

    @Test
    void creationsRunAFewAtATime() throws Exception {
        SessionGate gate = new SessionGate(LONG);
        int n = SessionGate.CREATING + 2;
        AtomicInteger inside = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(n);
        Thread[] creators = new Thread[n];
        for (int i = 0; i < n; i++) {
            creators[i] = start(() -> {
                gate.beginCreating();
                inside.incrementAndGet();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                inside.decrementAndGet();
                gate.endCreating();
                done.countDown();
            });
        }
        awaitTrue(() -> inside.get() == SessionGate.CREATING, "the first creations start");
        for (Thread t : creators) if (t.getState() != Thread.State.TIMED_WAITING) awaitBlocked(t);
        assertEquals(SessionGate.CREATING, inside.get(), "no more than CREATING at once");
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS), "every creation ran");
    }

    @Test
    void noTurnIsWaitedForPastThePatience() throws Exception {
        SessionGate gate = new SessionGate(TimeUnit.MILLISECONDS.toNanos(200));
        gate.beginCreating();                     // a creation that never ends (a driver hung in it)
        long t0 = System.nanoTime();
        gate.beginSending();                      // goes anyway after the patience
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(200), "it waited its patience first");
        long t1 = System.nanoTime();
        gate.beginCreating();                     // the same for a creation behind a send that never ends
        assertTrue(System.nanoTime() - t1 >= TimeUnit.MILLISECONDS.toNanos(200));
        Thread.currentThread().interrupt();       // an interrupt is kept, not thrown, and ends no wait early
        long t2 = System.nanoTime();
        gate.beginSending();
        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
        assertTrue(System.nanoTime() - t2 >= TimeUnit.MILLISECONDS.toNanos(200));
        assertFalse(Thread.currentThread().isInterrupted());
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Thread start(Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, "gate-test");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Until the thread waits inside the gate (its waits are timed slices). */
    private static void awaitBlocked(Thread t) throws Exception {
        awaitTrue(() -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.BLOCKED,
                "thread " + t.getName() + " waits");
    }

    private static void awaitTrue(Waits.Check condition, String what) throws Exception {
        Waits.waitFor(condition, 10_000, 1, what);
    }
}
