package io.argus.pipeline.events;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The messages on their way to the broker, at most {@code capacity} of them: waiting to be published, or published
 * and waiting for the broker's PUBACK (QoS 1). A message leaves only when it is confirmed: its PUBACK arrived (QoS 1),
 * or it was written to the connection (QoS 0). When the connection is lost, every unconfirmed message waits again, in
 * its original order and ahead of the newer ones, and is published again on the next connection.
 *
 * <p>Delivery is therefore at least once: a message whose PUBACK was lost with the connection is published twice.
 * Subscribers tell duplicates apart by the event's {@code id} and {@code kind}; a count is a retained state, so a
 * repeat is harmless.
 *
 * <p>When full, the oldest message is dropped (and counted), whatever its state: the newest events say most about
 * the scene now, and a retained count is superseded by the next one anyway. A dropped message's late PUBACK is
 * ignored.
 *
 * <p>Not thread-safe: used on its verticle's event loop only. The counters may be read from any thread.
 */
public final class MqttOutbox {
    /** One PUBLISH to make. */
    public record Message(String topic, Buffer payload, int qos, boolean retain) {}

    /** A message in the outbox; handed out by {@link #next()} and given back to {@link #sent}. */
    public static final class Entry {
        private final Message message;
        private int packetId = -1;   // on the current connection; -1 until the PUBLISH is written

        private Entry(Message message) { this.message = message; }

        public Message message() { return message; }
    }

    private final int capacity;
    /** Not published on the current connection, oldest first. */
    private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
    /** Published on the current connection and not yet confirmed, in publishing order: all older than the waiting. */
    private final LinkedHashSet<Entry> inFlight = new LinkedHashSet<>();
    private final Map<Integer, Entry> byPacketId = new HashMap<>();
    private volatile int size;
    private volatile int inFlightCount;
    private volatile long dropped;
    private volatile long confirmed;
    private volatile long resent;

    public MqttOutbox(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be >= 1, found " + capacity);
        this.capacity = capacity;
    }

    /** Adds a message at the end; when the outbox is full, the oldest message is dropped first. */
    public void add(Message m) {
        if (waiting.size() + inFlight.size() >= capacity) dropOldest();
        waiting.addLast(new Entry(m));
        counted();
    }

    /** The oldest waiting message, now counted as in flight; null when none waits. */
    public Entry next() {
        Entry e = waiting.pollFirst();
        if (e != null) {
            inFlight.add(e);
            counted();
        }
        return e;
    }

    /**
     * The PUBLISH of {@code e} was written with {@code packetId}. A QoS 0 message is confirmed by that; a QoS 1
     * message waits for its PUBACK. Ignored for an entry that is no longer in flight (dropped meanwhile).
     */
    public void sent(Entry e, int packetId) {
        if (!inFlight.contains(e)) return;
        if (e.message.qos() == 0) {
            confirm(e);
            return;
        }
        e.packetId = packetId;
        byPacketId.put(packetId, e);
    }

    /** The broker's PUBACK for {@code packetId}: true when it confirmed a message of the outbox. */
    public boolean acked(int packetId) {
        Entry e = byPacketId.get(packetId);
        if (e == null) return false;   // a message dropped while in flight, or not one of ours (the "online" status)
        confirm(e);
        return true;
    }

    /**
     * The connection is gone: its PUBACKs will never come. Every message in flight waits again, in order, ahead of
     * the messages that were never published.
     */
    public void connectionLost() {
        Entry[] again = inFlight.toArray(new Entry[0]);
        for (int i = again.length - 1; i >= 0; i--) {
            again[i].packetId = -1;
            waiting.addFirst(again[i]);
        }
        resent += again.length;
        inFlight.clear();
        byPacketId.clear();
        counted();
    }

    /** Messages in the outbox, waiting or in flight. */
    public int size() { return size; }

    /** Messages published on the current connection and not yet confirmed. */
    public int inFlight() { return inFlightCount; }

    public boolean hasWaiting() { return !waiting.isEmpty(); }

    public int capacity() { return capacity; }

    /** Messages dropped because the outbox was full. */
    public long dropped() { return dropped; }

    /** Messages that left confirmed (PUBACK, or written for QoS 0). */
    public long confirmed() { return confirmed; }

    /** Messages put back after a lost connection, to be published again: the possible duplicates. */
    public long resent() { return resent; }

    private void confirm(Entry e) {
        inFlight.remove(e);
        if (e.packetId >= 0) byPacketId.remove(e.packetId);
        confirmed++;
        counted();
    }

    /** In flight messages are older than waiting ones, so the oldest is the first in flight if any. */
    private void dropOldest() {
        Iterator<Entry> it = inFlight.iterator();
        if (it.hasNext()) {
            Entry e = it.next();
            it.remove();
            if (e.packetId >= 0) byPacketId.remove(e.packetId);
        } else {
            waiting.pollFirst();
        }
        dropped++;
    }

    private void counted() {
        size = waiting.size() + inFlight.size();
        inFlightCount = inFlight.size();
    }
}
