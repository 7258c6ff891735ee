package io.argus.pipeline.publish;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * One WebSocket client. Messages matching its {@link Subscription} go into a queue of at most {@code capacity};
 * when full, the oldest is dropped and the client later gets {@code {"type": "dropped", "count": n, "total": t}}
 * before the next message. Only as much as the socket's write queue accepts is written, so a client that never reads
 * costs at most {@code capacity} messages plus the write queue; one that sends requests without reading their answers
 * is not read while its write queue is full. Pings every interval; no pong within the timeout closes the socket. Runs
 * entirely on the HTTP verticle's event loop.
 */
final class ClientSession {
    private final ServerWebSocket ws;
    private final int capacity;
    private final long pongTimeoutMs;
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private final LongConsumer onDrop;
    private Subscription subscription;
    private long droppedSinceNotice;
    private long droppedTotal;
    private long sent;
    private long lastPongMs;
    private boolean closed;
    private boolean drainPending;
    private boolean readingPaused;

    ClientSession(ServerWebSocket ws, Subscription initial, int capacity, long pongTimeoutMs, LongConsumer onDrop) {
        this.ws = ws;
        this.subscription = initial;
        this.capacity = capacity;
        this.pongTimeoutMs = pongTimeoutMs;
        this.onDrop = onDrop;
        this.lastPongMs = System.currentTimeMillis();
    }

    void subscribe(Subscription s) { subscription = s; }

    Subscription subscription() { return subscription; }

    /** A detection message, snapshot notice or event for this client to filter and queue. */
    void offer(Outgoing m) {
        Subscription s = subscription;
        if (s == null || closed || !s.wantsCamera(m.cameraId())) return;
        if (m.snapshot() && !s.snapshots()) return;
        String text;
        if (m.event()) {
            if (!s.acceptsEvent(m.json())) return;
            text = m.encoded();
        } else if (!s.detections() && !m.snapshot()) {
            return;
        } else if (s.passesAll()) {
            if (!s.includeEmpty() && m.empty() && !m.snapshot()) return;
            text = m.encoded();
        } else {
            JsonArray kept = new JsonArray();
            for (Object o : m.json().getJsonArray("detections", new JsonArray())) {
                if (o instanceof JsonObject d && s.accepts(d)) kept.add(d);
            }
            if (kept.isEmpty() && !s.includeEmpty() && !m.snapshot()) return;
            text = m.json().copy().put("detections", kept).encode();
        }
        if (queue.size() >= capacity) {
            queue.pollFirst();
            droppedSinceNotice++;
            droppedTotal++;
            onDrop.accept(1);
        }
        queue.addLast(text);
        pump();
    }

    /** Writes while the socket accepts; otherwise waits for its drain. */
    void pump() {
        if (closed) return;
        if (ws.isClosed()) { // closing: its close handler will follow
            closed();
            return;
        }
        while (!queue.isEmpty() && !ws.writeQueueFull()) {
            if (droppedSinceNotice > 0) {
                ws.writeTextMessage(new JsonObject().put("type", "dropped").put("count", droppedSinceNotice)
                        .put("total", droppedTotal).encode());
                droppedSinceNotice = 0;
                continue;
            }
            ws.writeTextMessage(queue.pollFirst());
            sent++;
        }
        if (!queue.isEmpty()) awaitDrain();
    }

    /**
     * An answer to the client (subscribed, error). Each request gets one, so a client that sends without reading would
     * have its answers queue without bound: once the write queue is full, the client is not read any more (TCP then
     * pushes back on its sending) until the queue drains.
     */
    void send(JsonObject control) {
        if (closed) return;
        ws.writeTextMessage(control.encode());
        if (ws.writeQueueFull() && !readingPaused) {
            readingPaused = true;
            ws.pause();
            awaitDrain();
        }
    }

    /** One drain handler for both waits (the socket has one slot): resume reading, then write what queued. */
    private void awaitDrain() {
        if (drainPending) return;
        drainPending = true;
        ws.drainHandler(v -> {
            drainPending = false;
            if (readingPaused) {
                readingPaused = false;
                ws.resume();
            }
            pump();
        });
    }

    void pong() { lastPongMs = System.currentTimeMillis(); }

    /** Called every ping interval: closes a client silent for too long (returns false), else pings it. */
    boolean ping(long nowMs) {
        if (closed) return false;
        if (nowMs - lastPongMs > pongTimeoutMs) {
            closed = true;
            queue.clear();
            ws.close((short) 1001, "no pong within " + pongTimeoutMs + " ms");
            return false;
        }
        ws.writePing(Buffer.buffer("argus"));
        return true;
    }

    void closed() {
        closed = true;
        queue.clear();
    }

    int queued() { return queue.size(); }

    long droppedTotal() { return droppedTotal; }

    long sent() { return sent; }

    boolean isClosed() { return closed; }

    JsonObject toJson() {
        // the peer's address tells clients apart (several tabs, a proxy's connections): whose messages are dropped
        var peer = ws.remoteAddress();
        return new JsonObject().put("remote", peer != null ? peer.host() + ":" + peer.port() : null)
                .put("queued", queue.size()).put("sent", sent).put("dropped", droppedTotal)
                .put("subscription", subscription != null ? subscription.toJson() : null);
    }

    /** A message as the gateway hands it to every session: parsed once, encoded at most once. */
    static final class Outgoing {
        private final JsonObject json;
        private final boolean snapshot;
        private final boolean event;
        private String encoded;

        Outgoing(JsonObject json) {
            this.json = json;
            this.snapshot = "snapshot".equals(json.getString("type"));
            this.event = "event".equals(json.getString("type")) || "count".equals(json.getString("type"));
        }

        /** A tracked-object event or count change (docs/tracking.md), filtered by {@link Subscription#acceptsEvent}. */
        boolean event() { return event; }

        JsonObject json() { return json; }

        String cameraId() { return json.getString("cameraId"); }

        boolean snapshot() { return snapshot; }

        boolean empty() {
            JsonArray d = json.getJsonArray("detections");
            return d == null || d.isEmpty();
        }

        String encoded() {
            if (encoded == null) encoded = json.encode();
            return encoded;
        }
    }
}
