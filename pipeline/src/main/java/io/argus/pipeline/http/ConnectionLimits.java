package io.argus.pipeline.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a client may hold of the HTTP server before it has said what it wants: a place among at most
 * {@code maxConnections} (more are closed as they come) and, for each request, until its head (request line and
 * headers) has arrived, {@code requestHeadTimeoutMs}. The deadline runs from the connection's opening and again from
 * each answer (so it is also how long a kept-alive connection may wait for its next request) and stops when the head
 * is complete: a long answer, a SockJS stream or a WebSocket is not limited by it. Vert.x has an idle timeout (no byte
 * for a while, which a client sending a header line every few seconds never reaches) but no deadline for a request
 * head, hence this.
 *
 * <p>A request only writes its connection's deadline; one periodic sweep (every quarter of the timeout, at most a
 * second) closes the connections past theirs, so a connection goes at most that much after its deadline, and a busy
 * server makes no timer per request.
 *
 * <p>Needs HTTP/1.x from the first byte (clear-text HTTP/2 off): with h2c on, Vert.x makes a connection only once its
 * first bytes tell the protocol, so a client that sends nothing would have no connection to time.
 */
final class ConnectionLimits {
    /** A deadline that never comes: a request in progress, or a WebSocket. */
    private static final long NONE = Long.MAX_VALUE;

    private final int maxConnections;
    private final long headTimeoutNanos;
    /** Open connections and when each must have sent its next request head ({@link System#nanoTime}; NONE). */
    private final Map<HttpConnection, AtomicLong> deadlines = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final Vertx vertx;
    private final long sweep;

    /** Starts the sweep; {@link #stop} ends it. */
    ConnectionLimits(Vertx vertx, int maxConnections, long headTimeoutMs) {
        this.vertx = vertx;
        this.maxConnections = maxConnections;
        this.headTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(headTimeoutMs);
        this.sweep = vertx.setPeriodic(Math.max(10, Math.min(1_000, headTimeoutMs / 4)), t -> closeLate());
    }

    void stop() { vertx.cancelTimer(sweep); }

    /** The server's connection handler: admits the connection (or closes it) and starts its first deadline. */
    void opened(HttpConnection conn) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            refused.incrementAndGet();
            conn.close();
            return;
        }
        deadlines.put(conn, new AtomicLong(System.nanoTime() + headTimeoutNanos));
        // When a request becomes a WebSocket, Vert.x replaces the HTTP connection object by another and never calls the
        // first one's close handler: the channel's close is the one signal for both kinds (ConnectionBase is Vert.x's
        // own base of every connection; SlowHeadersTest checks that the count comes back).
        if (conn instanceof ConnectionBase base) base.channel().closeFuture().addListener(f -> closed(conn));
        else conn.closeHandler(v -> closed(conn));
    }

    private void closed(HttpConnection conn) {
        if (deadlines.remove(conn) != null) open.decrementAndGet();
    }

    /**
     * First route of the router: a request head arrived, so its connection's deadline stops; it starts again once the
     * answer is out, unless the connection became a WebSocket.
     */
    void headArrived(RoutingContext rc) {
        AtomicLong deadline = deadlines.get(rc.request().connection());
        if (deadline != null) {
            deadline.set(NONE);
            String upgrade = rc.request().getHeader(HttpHeaders.UPGRADE);
            boolean webSocket = upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
            rc.addEndHandler(ar -> {
                if (ar.succeeded() && !(webSocket && rc.response().getStatusCode() == 101)) {
                    deadline.set(System.nanoTime() + headTimeoutNanos);
                }
            });
        }
        rc.next();
    }

    private void closeLate() {
        long now = System.nanoTime();
        for (Map.Entry<HttpConnection, AtomicLong> e : deadlines.entrySet()) {
            long d = e.getValue().get();
            if (d != NONE && d - now < 0 && e.getValue().compareAndSet(d, NONE)) {
                timedOut.incrementAndGet();
                e.getKey().close();
            }
        }
    }

    /** Connections open now. */
    int open() { return open.get(); }

    /** Connections closed at once for being over the cap. */
    long refused() { return refused.get(); }

    /** Connections closed for not finishing a request head in time. */
    long timedOut() { return timedOut.get(); }
}
