package io.argus.pipeline.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A real WebSocket client (Vert.x) that queues every JSON message it receives. */
public final class WsClient implements AutoCloseable {
    public final LinkedBlockingQueue<JsonObject> messages = new LinkedBlockingQueue<>();
    public final WebSocket ws;
    private final WebSocketClient client; // held: an unreachable client is closed by Vert.x, with its connections
    private volatile boolean closed;
    private volatile String closeReason;

    private WsClient(WebSocketClient client, WebSocket ws) {
        this.client = client;
        this.ws = ws;
        ws.textMessageHandler(t -> messages.add(new JsonObject(t)));
        ws.binaryMessageHandler(b -> messages.add(new JsonObject(b))); // the SockJS raw transport writes binary frames
        ws.closeHandler(v -> {
            closeReason = ws.closeStatusCode() + " " + ws.closeReason();
            closed = true;
        });
    }

    /** Connects to {@code uri} (e.g. "/ws?cameras=a"); {@code receiveBuffer} > 0 sets a small socket receive buffer. */
    public static WsClient connect(Vertx vertx, int port, String uri, String token, int receiveBuffer) throws Exception {
        return connect(vertx, port, uri, token, receiveBuffer, MultiMap.caseInsensitiveMultiMap());
    }

    /** As above, with more headers on the upgrade request (a cookie, say). */
    public static WsClient connect(Vertx vertx, int port, String uri, String token, int receiveBuffer, MultiMap headers)
            throws Exception {
        return connect(vertx, "127.0.0.1", port, uri, token, receiveBuffer, headers);
    }

    /** As above, to a server at {@code host} (a node in another network namespace, say). */
    public static WsClient connect(Vertx vertx, String host, int port, String uri, String token, int receiveBuffer, MultiMap headers)
            throws Exception {
        WebSocketClientOptions o = new WebSocketClientOptions().setMaxFrameSize(1 << 20).setMaxMessageSize(1 << 22);
        if (receiveBuffer > 0) o.setReceiveBufferSize(receiveBuffer);
        WebSocketConnectOptions c = new WebSocketConnectOptions().setHost(host).setPort(port).setURI(uri);
        if (token != null) c.addHeader("Authorization", "Bearer " + token);
        headers.forEach(c::addHeader);
        WebSocketClient client = vertx.createWebSocketClient(o);
        try {
            // the handlers go on in the connect's own completion, on the event loop: set later from this thread, a
            // message the server sends at once (an error about the upgrade's query, say) could come before them and
            // be dropped
            return client.connect(c).map(ws -> new WsClient(client, ws)).toCompletionStage().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            client.close();
            throw e;
        }
    }

    public void send(JsonObject j) { ws.writeTextMessage(j.encode()); }

    /** The next message matching {@code p} within the timeout (others are discarded); fails when none came. */
    public JsonObject await(Predicate<JsonObject> p, Duration timeout, String what) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        java.util.ArrayDeque<String> skipped = new java.util.ArrayDeque<>();
        while (System.nanoTime() < end) {
            JsonObject m = messages.poll(Math.max(1, (end - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
            if (m != null && p.test(m)) return m;
            if (m != null) {
                String t = m.encode();
                skipped.addLast(t.length() > 200 ? t.substring(0, 200) + "..." : t);
                if (skipped.size() > 3) skipped.removeFirst();
            }
        }
        throw new AssertionError("no " + what + " within " + timeout.toMillis() + " ms" + (closed ? " (socket closed: " + closeReason + ")" : "")
                + "; last others: " + skipped);
    }

    public boolean closed() { return closed; }

    @Override
    public void close() {
        try {
            ws.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // already closed
        } finally {
            client.close();
        }
    }
}
