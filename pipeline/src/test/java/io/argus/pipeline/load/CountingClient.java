package io.argus.pipeline.load;

import io.vertx.core.Future;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A WebSocket client that keeps up (Vert.x, as a dashboard): counts detection messages and {@code dropped} notices and
 * hands each detection's latencies to a {@link Latencies}: capture to receipt here (what a client sees), and for the
 * probes (one per camera, every frame) the server's own capture-to-publish {@code latency.totalMs}. Reads two numbers
 * out of the text rather than parsing it: 400 clients on a shared 2-core machine.
 */
final class CountingClient {
    final String camera;
    final boolean probe;
    final WebSocket ws;
    final AtomicLong detections = new AtomicLong();
    final AtomicLong droppedNotices = new AtomicLong();
    private volatile boolean closed;

    private CountingClient(String camera, boolean probe, WebSocket ws, Latencies latencies) {
        this.camera = camera;
        this.probe = probe;
        this.ws = ws;
        ws.textMessageHandler(text -> {
            double now = System.currentTimeMillis();
            if (text.contains("\"type\":\"detections\"")) {
                detections.incrementAndGet();
                double capture = number(text, "\"captureTime\":");
                if (!Double.isNaN(capture)) latencies.delivery(now - capture);
                if (probe) {
                    latencies.server(number(text, "\"totalMs\":"));
                    latencies.inference(number(text, "\"inferenceMs\":"));
                }
            } else if (text.contains("\"type\":\"dropped\"")) {
                droppedNotices.incrementAndGet();
            }
        });
        ws.closeHandler(v -> closed = true);
    }

    /** Subscribes in the query (every frame of {@code camera}, empty ones too: the count is the camera's rate). */
    static Future<CountingClient> connect(WebSocketClient client, int port, String token, String camera, boolean probe,
                                          Latencies latencies) {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI("/ws?cameras=" + camera + "&includeEmpty=true").addHeader("Authorization", "Bearer " + token);
        return client.connect(o).map(ws -> new CountingClient(camera, probe, ws, latencies));
    }

    int localPort() { return ws.localAddress().port(); }

    boolean closed() { return closed; }

    static double number(String text, String key) {
        int i = text.indexOf(key);
        if (i < 0) return Double.NaN;
        int start = i + key.length(), end = start;
        while (end < text.length() && "0123456789.-Ee".indexOf(text.charAt(end)) >= 0) end++;
        try {
            return Double.parseDouble(text.substring(start, end));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
