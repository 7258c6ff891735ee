package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Events and counts of a scripted scene reach a real Mosquitto and a real subscriber; counts are retained; the node's
 * availability is "online" while connected and "offline" after a graceful stop or (the broker's last will) after the
 * process dies without a word.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 15)
class MqttOutputTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;
    Mosquitto broker;

    @BeforeEach
    void broker() throws Exception {
        broker = Mosquitto.started(tmp.resolve("broker"));
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.close();
    }

    @Test
    void scriptedSceneReachesTheSubscriberAndCountsStayRetained() throws Exception {
        try (MqttSubscriber sub = MqttSubscriber.persistent(broker, "sub1", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, new JsonObject()))) {
            assertTrue(sub.waitFor(m -> m.topic().equals("argus/available") && m.payload().equals("online"), WAIT),
                    "online status: " + sub.received);
            List<JsonObject> script = Scene.script();
            List<JsonObject> events = new ArrayList<>();
            for (JsonObject m : script) {
                if (m.getString("type").equals("event")) {
                    argus.event(m);
                    events.add(m);
                } else {
                    argus.count(m);
                }
            }
            argus.await(s -> s.confirmed() == script.size() && s.outbox() == 0, WAIT, "all acknowledged");
            assertTrue(sub.waitForCount(m -> m.topic().equals("argus/door/events"), events.size(), WAIT), "events: " + sub.received);

            List<JsonObject> got = sub.on("argus/door/events").stream().map(m -> new JsonObject(m.payload())).toList();
            assertEquals(events, got, "every event, as sent, in order");
            assertEquals(List.of("new", "update", "update", "new", "update", "update", "end", "end"),
                    got.stream().map(e -> e.getString("kind")).toList());
            assertEquals(List.of("1", "0"), payloads(sub, "argus/door/porch/person/count"), "zone counts are plain numbers");
            assertEquals(new JsonObject().put("in", 1).put("out", 0),
                    new JsonObject(payloads(sub, "argus/door/gate/person/count").getFirst()), "line counts are in/out");

            // A subscriber that comes later gets the counts (retained, the latest only) and no event (not retained).
            List<MqttSubscriber.Received> later = MqttSubscriber.retained(broker, "argus/#");
            assertTrue(later.contains(new MqttSubscriber.Received("argus/door/porch/person/count", "0")), later.toString());
            assertTrue(later.contains(new MqttSubscriber.Received("argus/door/gate/person/count", "{\"in\":1,\"out\":0}")), later.toString());
            assertTrue(later.contains(new MqttSubscriber.Received("argus/door/gate/car/count", "{\"in\":0,\"out\":1}")), later.toString());
            assertTrue(later.contains(new MqttSubscriber.Received("argus/available", "online")), later.toString());
            assertTrue(later.stream().noneMatch(m -> m.topic().endsWith("/events")), "events are not retained: " + later);

            MqttStats s = argus.stats();
            assertEquals(0, s.dropped(), s.toString());
            assertEquals(script.size(), s.published(), s.toString());
            assertTrue(s.connected(), s.toString());
        }
    }

    @Test
    void gracefulStopSaysOffline() throws Exception {
        try (MqttSubscriber sub = MqttSubscriber.persistent(broker, "sub2", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, new JsonObject()))) {
            assertTrue(sub.waitFor(m -> m.topic().equals("argus/available") && m.payload().equals("online"), WAIT), sub.received.toString());
            argus.event(Scene.numbered(1));
            argus.undeploy();
            assertTrue(sub.waitFor(m -> m.topic().equals("argus/available") && m.payload().equals("offline"), WAIT), sub.received.toString());
            assertEquals(1, sub.on("argus/door/events").size(), "the event sent just before the stop went out first");
            assertEquals(List.of(new MqttSubscriber.Received("argus/available", "offline")),
                    MqttSubscriber.retained(broker, "argus/available"));
        }
    }

    /**
     * The Argus process is killed (SIGKILL: no DISCONNECT, no "offline" of its own). The broker notices the dead
     * connection and publishes the last will: "offline", retained.
     */
    @Test
    void lastWillSaysOfflineWhenTheProcessDies() throws Exception {
        try (MqttSubscriber sub = MqttSubscriber.persistent(broker, "sub3", "argus/#")) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), MqttChildNode.class.getName(),
                    String.valueOf(broker.port()), tmp.toString());
            Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
                StringBuilder said = new StringBuilder();
                for (String line; (line = out.readLine()) != null && !line.equals(MqttChildNode.CONNECTED); ) said.append(line).append('\n');
                assertTrue(child.isAlive(), "the child node died: " + said);
                assertTrue(sub.waitFor(m -> m.topic().equals("argus/available") && m.payload().equals("online"), WAIT), sub.received.toString());
                assertTrue(sub.waitFor(m -> m.topic().equals("argus/door/events"), WAIT), "the child published: " + sub.received);
                sub.received.clear();
                child.destroyForcibly();   // SIGKILL
                assertTrue(child.waitFor(10, TimeUnit.SECONDS));
                assertTrue(sub.waitFor(m -> m.topic().equals("argus/available") && m.payload().equals("offline"), WAIT),
                        "last will: " + sub.received + "\n" + broker.logText());
                assertEquals(List.of(new MqttSubscriber.Received("argus/available", "offline")),
                        MqttSubscriber.retained(broker, "argus/available"), "the will is retained");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    @Test
    void malformedMessagesAreCountedNotPublished() throws Exception {
        try (MqttSubscriber sub = MqttSubscriber.persistent(broker, "sub4", "argus/#");
             RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp,
                     new JsonObject().put("topicPrefix", "site/argus")))) {
            argus.event(new JsonObject().put("type", "event").put("kind", "new"));          // no camera
            argus.count(new JsonObject().put("type", "count").put("cameraId", "door").put("className", "person"));   // no zone or line
            argus.count(Scene.zoneCount("door", "porch", "person", 1).put("count", "one"));   // not a number
            argus.event("{not json");
            argus.count(Scene.zoneCount("door", "porch", "traffic light/red", 2));            // '/' in a class name
            argus.await(s -> s.rejected() == 4 && s.confirmed() == 1, WAIT, "four rejected, one published");
            assertTrue(MqttSubscriber.retained(broker, "site/#")
                    .contains(new MqttSubscriber.Received("site/argus/door/porch/traffic light_red/count", "2")));
            assertTrue(sub.received.stream().noneMatch(m -> m.topic().startsWith("argus/door")), sub.received.toString());
        }
    }

    private static List<String> payloads(MqttSubscriber sub, String topic) {
        return sub.on(topic).stream().map(MqttSubscriber.Received::payload).toList();
    }
}
