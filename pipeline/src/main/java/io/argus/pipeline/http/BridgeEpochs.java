package io.argus.pipeline.http;

import io.argus.pipeline.publish.EpochFilter;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The epoch filter of the SockJS event-bus bridge ({@code /eventbus}): what the WebSocket gateway does for {@code /ws},
 * per browser connection. After a failover the former owner of a camera may still publish for a moment (it has not
 * yet noticed it lost the lease); its messages carry the older epoch and are not delivered once the new owner's
 * have been seen. Messages without an epoch (a single node, snapshots, training) pass.
 */
final class BridgeEpochs {
    private final long forgetMs;
    private final Map<Object, EpochFilter> bySocket = new ConcurrentHashMap<>();

    BridgeEpochs(long forgetMs) { this.forgetMs = forgetMs; }

    /** Whether the bridge delivers {@code raw} (the bridge's frame: address, body) to {@code socket} (a connection, by identity). */
    boolean deliver(Object socket, JsonObject raw) {
        if (raw == null || !(raw.getValue("body") instanceof JsonObject body)) return true;
        EpochFilter f = bySocket.computeIfAbsent(socket, s -> new EpochFilter(forgetMs));
        synchronized (f) {
            return f.accept(body);
        }
    }

    void closed(Object socket) { bySocket.remove(socket); }

    /** Connections with a filter (for tests: closed ones are forgotten). */
    int sockets() { return bySocket.size(); }
}
