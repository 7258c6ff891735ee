package io.argus.pipeline.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Needs HTTP/1.x from the first byte (clear-text HTTP/2 off): with h2c on, Vert.x makes a connection only once its
 * first bytes tell the protocol, so a client that sends nothing would have no connection to time.
 */
final class ConnectionLimits {
    private final Vertx vertx;
    private final int maxConnections;
    private final long headTimeoutMs;
    /** Open connections and their pending deadline timer (-1: none, a request in progress or a WebSocket). */
    private final Map<HttpConnection, Long> deadlines = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();

    ConnectionLimits(Vertx vertx, int maxConnections, long headTimeoutMs) {
        this.vertx = vertx;
        this.maxConnections = maxConnections;
        this.headTimeoutMs = headTimeoutMs;
    }

    /** The server's connection handler: admits the connection (or closes it) and starts its first deadline. */
    void opened(HttpConnection conn) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            refused.incrementAndGet();
            conn.close();
            return;
        }
        deadlines.put(conn, -1L);
        conn.closeHandler(v -> {
            open.decrementAndGet();
            Long timer = deadlines.remove(conn);
            if (timer != null && timer >= 0) vertx.cancelTimer(timer);
        });
        arm(conn);
    }

    /**
     * First route of the router: a request head arrived, so its connection's deadline stops; it starts again once the
     * answer is out, unless the connection became a WebSocket.
     */
    void headArrived(RoutingContext rc) {
        HttpConnection conn = rc.request().connection();
        disarm(conn);
        String upgrade = rc.request().getHeader(HttpHeaders.UPGRADE);
        boolean webSocket = upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
        rc.addEndHandler(ar -> {
            if (ar.succeeded() && !(webSocket && rc.response().getStatusCode() == 101)) arm(conn);
        });
        rc.next();
    }

    private void arm(HttpConnection conn) {
        long timer = vertx.setTimer(headTimeoutMs, id -> {
            if (deadlines.replace(conn, id, -1L)) {
                timedOut.incrementAndGet();
                conn.close();
            }
        });
        if (deadlines.computeIfPresent(conn, (c, old) -> {
            if (old >= 0) vertx.cancelTimer(old);
            return timer;
        }) == null) {
            vertx.cancelTimer(timer); // closed meanwhile
        }
    }

    private void disarm(HttpConnection conn) {
        deadlines.computeIfPresent(conn, (c, t) -> {
            if (t >= 0) vertx.cancelTimer(t);
            return -1L;
        });
    }

    /** Connections open now. */
    int open() { return open.get(); }

    /** Connections closed at once for being over the cap. */
    long refused() { return refused.get(); }

    /** Connections closed for not finishing a request head in time. */
    long timedOut() { return timedOut.get(); }
}
