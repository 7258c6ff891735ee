package io.argus.tools.cluster;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket client on one node's {@code /ws}, as a dashboard is: every detection message it receives (after that
 * node's epoch filter), stamped with the wall clock on arrival. Several taps on one machine share the clock with the
 * nodes, so arrival minus {@code captureTime} is the capture-to-client latency.
 */
final class DetectionTap implements WebSocket.Listener, AutoCloseable {
    /** One detection message as a client got it. */
    record Received(double atMs, String camera, String node, long epoch, long frame, double captureTime) {
        double latencyMs() { return atMs - captureTime; }
    }

    final String nodeName;
    private final List<Received> received = new ArrayList<>();
    private final StringBuilder partial = new StringBuilder();
    private final HttpClient http = HttpClient.newHttpClient();
    private final java.util.function.Consumer<Received> listener;
    private WebSocket socket;

    private DetectionTap(String nodeName, java.util.function.Consumer<Received> listener) {
        this.nodeName = nodeName;
        this.listener = listener;
    }

    static DetectionTap connect(NodeProcess node) throws Exception {
        return connect(node, r -> { });
    }

    /** As {@link #connect(NodeProcess)}, also handing each message to {@code listener} as it arrives (the socket's thread). */
    static DetectionTap connect(NodeProcess node, java.util.function.Consumer<Received> listener) throws Exception {
        DetectionTap tap = new DetectionTap(node.name, listener);
        tap.socket = tap.http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + node.httpPort + "/ws?includeEmpty=true"), tap)
                .get(10, TimeUnit.SECONDS);
        return tap;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            double at = System.currentTimeMillis();
            JsonObject m = new JsonObject(partial.toString());
            partial.setLength(0);
            if ("detections".equals(m.getString("type"))) {
                Received r = new Received(at, m.getString("cameraId"), m.getString("node"), m.getLong("epoch", -1L),
                        m.getLong("frame", -1L), m.getDouble("captureTime", Double.NaN));
                synchronized (received) {
                    received.add(r);
                }
                listener.accept(r);
            }
        }
        ws.request(1);
        return null;
    }

    /** What arrived so far (a copy). */
    List<Received> received() {
        synchronized (received) {
            return new ArrayList<>(received);
        }
    }

    @Override
    public void close() {
        if (socket != null) socket.abort();
        http.close();
    }
}
