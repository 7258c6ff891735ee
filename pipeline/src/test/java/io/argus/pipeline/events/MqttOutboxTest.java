package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The outbox alone: what leaves when, what waits again after a lost connection, what is dropped when full. */
@Budget(seconds = 5)
class MqttOutboxTest {
    private static MqttOutbox.Message message(int n) { return new MqttOutbox.Message("t/" + n, Buffer.buffer("" + n), 1, false); }

    private static String topic(MqttOutbox.Entry e) { return e.message().topic(); }

    @Test
    void aMessageLeavesOnlyWithItsPuback() {
        MqttOutbox box = new MqttOutbox(10);
        box.add(message(1));
        MqttOutbox.Entry e = box.next();
        assertEquals(1, box.size());
        assertEquals(1, box.inFlight());
        box.sent(e, 7);
        assertEquals(1, box.size(), "written is not acknowledged");
        assertFalse(box.acked(8), "not ours");
        assertTrue(box.acked(7));
        assertEquals(0, box.size());
        assertEquals(1, box.confirmed());
        assertFalse(box.acked(7), "a repeated PUBACK confirms nothing more");
    }

    @Test
    void qos0LeavesWhenWritten() {
        MqttOutbox box = new MqttOutbox(10);
        box.add(new MqttOutbox.Message("t", Buffer.buffer("x"), 0, false));
        box.sent(box.next(), 1);
        assertEquals(0, box.size());
        assertEquals(1, box.confirmed());
    }

    @Test
    void aLostConnectionPutsTheUnacknowledgedBackInOrderAheadOfTheRest() {
        MqttOutbox box = new MqttOutbox(10);
        for (int i = 1; i <= 5; i++) box.add(message(i));
        MqttOutbox.Entry first = box.next();
        MqttOutbox.Entry second = box.next();
        MqttOutbox.Entry third = box.next();
        box.sent(first, 1);
        box.sent(second, 2);
        box.sent(third, 3);
        box.acked(2);                    // out of order: allowed
        box.connectionLost();
        assertEquals(4, box.size());
        assertEquals(0, box.inFlight());
        assertEquals(2, box.resent());
        List<String> order = new ArrayList<>();
        for (MqttOutbox.Entry e; (e = box.next()) != null; ) order.add(topic(e));
        assertEquals(List.of("t/1", "t/3", "t/4", "t/5"), order);
        assertFalse(box.acked(1), "the old connection's packet ids mean nothing now");
    }

    @Test
    void whenFullTheOldestGoesEvenInFlight() {
        MqttOutbox box = new MqttOutbox(3);
        box.add(message(1));
        MqttOutbox.Entry inFlight = box.next();
        box.sent(inFlight, 1);
        box.add(message(2));
        box.add(message(3));
        box.add(message(4));             // drops 1, though in flight
        assertEquals(1, box.dropped());
        assertEquals(3, box.size());
        assertFalse(box.acked(1), "the dropped message's late PUBACK is ignored");
        box.add(message(5));             // drops 2, waiting
        assertEquals(2, box.dropped());
        assertEquals("t/3", topic(box.next()));
        assertEquals("t/4", topic(box.next()));
        assertEquals("t/5", topic(box.next()));
        assertNull(box.next());
    }

    @Test
    void aWriteCompletingAfterTheDropIsIgnored() {
        MqttOutbox box = new MqttOutbox(1);
        box.add(message(1));
        MqttOutbox.Entry e = box.next();
        box.add(message(2));             // drops 1 before its write completed
        box.sent(e, 9);
        assertFalse(box.acked(9));
        assertEquals(1, box.size());
    }
}
