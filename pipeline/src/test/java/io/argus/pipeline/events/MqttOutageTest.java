package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes away and comes back. Argus keeps what it could not publish in its outbox and delivers it after the
 * restart: nothing is lost within the outbox's bound, and beyond it the oldest are dropped and counted.
 *
 * <p>The broker runs with persistence, so the subscriber's persistent session (and the QoS 1 messages queued for it)
 * survives the restart as on a production broker; mosquitto_sub reconnects by itself.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 55)
class MqttOutageTest {
    /**
     * Long enough for the reconnect backoff (200 ms doubling) to reach its 2 s cap and retry there several times, with
     * an event a second queued meanwhile; a longer outage only queues more of the same.
     */
    private static final Duration OUTAGE = Duration.ofSeconds(12);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** The MQTT outage test: the broker is stopped for 12 s while events keep coming; none is lost. */
    @Test
    void brokerStoppedForTwelveSecondsLosesNoEvent() throws Exception {
        Path dir = tmp.resolve("broker");
        try (Mosquitto broker = Mosquitto.started(dir, "persistence true", "persistence_location " + dir + "/");
             MqttSubscriber sub = MqttSubscriber.persistent(broker, "outage-sub", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp,
                     new JsonObject().put("reconnect", new JsonObject().put("initialMs", 200).put("maxMs", 2000))))) {
            int n = 0;
            for (; n < 5; n++) argus.event(Scene.numbered(n));
            argus.await(s -> s.confirmed() == 5, WAIT, "the first 5 acknowledged");

            broker.stop();
            long down = System.nanoTime();
            argus.await(s -> !s.connected(), WAIT, "disconnected");
            List<Integer> duringOutage = new ArrayList<>();
            while (System.nanoTime() - down < OUTAGE.toNanos()) {   // an event a second while the broker is away
                argus.event(Scene.numbered(n));
                duringOutage.add(n++);
                Pace.holdMillis(1000, "an event a second");
            }
            MqttStats atRestart = argus.stats();
            broker.start();
            Duration outage = Duration.ofNanos(System.nanoTime() - down);
            for (int i = 0; i < 5; i++) argus.event(Scene.numbered(n++));
            int total = n;

            MqttStats s = argus.await(x -> x.connected() && x.confirmed() == total && x.outbox() == 0, WAIT,
                    "all " + total + " acknowledged after the restart");
            assertTrue(sub.waitFor(m -> received(sub).size() == total, WAIT), "the subscriber has " + received(sub).size()
                    + " of " + total + " events: missing " + missing(sub, total));

            assertTrue(outage.compareTo(OUTAGE) >= 0, "the broker was away " + outage);
            assertTrue(duringOutage.size() >= OUTAGE.toSeconds() - 1, "events during the outage: " + duringOutage);
            assertEquals(duringOutage.size(), atRestart.outbox(), "the outbox held the outage's events: " + atRestart);
            assertTrue(received(sub).containsAll(duringOutage), "missing " + missing(sub, total));
            assertEquals(0, s.dropped(), s.toString());
            assertTrue(s.reconnects() >= 1, s.toString());
            System.out.println("broker away " + outage.toMillis() + " ms; " + duringOutage.size()
                    + " events during the outage all delivered; " + s + "; the subscriber got "
                    + sub.on("argus/door/events").size() + " messages for " + total + " events");
        }
    }

    /**
     * The broker stops in the middle of a burst, with PUBLISHes on the wire whose PUBACKs never come: those are
     * published again after the restart, before the rest, and every event arrives (some perhaps twice).
     */
    @Test
    void brokerStoppedMidBurstLosesNothing() throws Exception {
        Path dir = tmp.resolve("broker");
        int total = 2000;
        try (Mosquitto broker = Mosquitto.started(dir, "persistence true", "persistence_location " + dir + "/",
                "max_queued_messages 0");   // the subscriber may lag behind: the broker must not drop for it either
             MqttSubscriber sub = MqttSubscriber.persistent(broker, "burst-sub", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp,
                     new JsonObject().put("maxInflight", 200)))) {
            for (int i = 0; i < total; i++) argus.event(Scene.numbered(i));
            argus.await(s -> s.confirmed() >= 200, WAIT, "under way");
            broker.stop();
            MqttStats atStop = argus.await(s -> !s.connected(), WAIT, "disconnected");
            broker.start();
            MqttStats s = argus.await(x -> x.confirmed() == total && x.outbox() == 0, WAIT, "all acknowledged after the restart");
            assertTrue(sub.waitFor(m -> received(sub).size() == total, WAIT), "missing " + missing(sub, total));
            assertEquals(0, s.dropped(), s.toString());
            System.out.println("stopped mid-burst at " + atStop + "; after the restart " + s + "; the subscriber got "
                    + sub.on("argus/door/events").size() + " messages for " + total + " events");
        }
    }

    /** A 5-message outbox and 20 events while the broker is away: the oldest 15 are dropped and counted. */
    @Test
    void fullOutboxDropsTheOldest() throws Exception {
        Path dir = tmp.resolve("broker");
        try (Mosquitto broker = Mosquitto.started(dir, "persistence true", "persistence_location " + dir + "/");
             MqttSubscriber sub = MqttSubscriber.persistent(broker, "tiny-sub", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp,
                     new JsonObject().put("outbox", 5)))) {
            argus.event(Scene.numbered(0));
            argus.await(s -> s.confirmed() == 1, WAIT, "the first acknowledged");

            broker.stop();
            argus.await(s -> !s.connected(), WAIT, "disconnected");
            for (int i = 1; i <= 20; i++) argus.event(Scene.numbered(i));
            MqttStats full = argus.await(s -> s.dropped() == 15, WAIT, "15 dropped");
            assertEquals(5, full.outbox(), full.toString());
            broker.start();

            MqttStats s = argus.await(x -> x.confirmed() == 6 && x.outbox() == 0, WAIT, "the newest 5 acknowledged");
            assertTrue(sub.waitFor(m -> received(sub).containsAll(List.of(16, 17, 18, 19, 20)), WAIT), "received " + received(sub));
            assertEquals(Set.of(0, 16, 17, 18, 19, 20), received(sub), "the oldest 15 never went out");
            assertEquals(15, s.dropped(), s.toString());
        }
    }

    /** The numbers of the events the subscriber got (see {@link Scene#numbered}). */
    private static Set<Integer> received(MqttSubscriber sub) {
        return sub.on("argus/door/events").stream()
                .map(m -> new JsonObject(m.payload()).getInteger("trackId"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Integer> missing(MqttSubscriber sub, int total) {
        Set<Integer> got = received(sub);
        return IntStream.range(0, total).filter(i -> !got.contains(i)).boxed().toList();
    }
}
