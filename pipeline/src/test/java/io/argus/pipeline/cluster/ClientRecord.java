package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.WsClient;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What a WebSocket client of one node received, and the cluster's one-owner checks on it, shared by the multi-process
 * tests (ClusterFailoverTest, ClusterPartitionTest; the benchmark has its own, PublisherCheck).
 */
final class ClientRecord {
    private ClientRecord() {}

    /** A detection message as the client got it (after its node's epoch filter). */
    record Received(long atMs, String camera, String node, long epoch, double captureTime) {}

    /** Records {@code ws}'s detection messages into {@code into} on a daemon thread (interrupt it to stop). */
    static Thread collect(WsClient ws, List<Received> into, String threadName) {
        Thread t = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    JsonObject m = ws.messages.poll(100, TimeUnit.MILLISECONDS);
                    if (m == null || !"detections".equals(m.getString("type"))) continue;
                    into.add(new Received(System.currentTimeMillis(), m.getString("cameraId"), m.getString("node"),
                            m.getLong("epoch", -1L), m.getDouble("captureTime")));
                }
            } catch (InterruptedException ignored) {
                // done
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Per camera, in arrival order: epochs never go back, one epoch comes from one node, and the frames of two owners
     * do not interleave in capture time. Returns, per camera, each epoch's node and the camera's message count.
     */
    static Map<String, Map<Long, String>> checkNoOverlap(List<Received> received, String who) {
        Map<String, List<Received>> byCamera = new TreeMap<>();
        for (Received r : received) byCamera.computeIfAbsent(r.camera(), k -> new ArrayList<>()).add(r);
        Map<String, Map<Long, String>> epochs = new TreeMap<>();
        for (var e : byCamera.entrySet()) {
            long epoch = -1;
            Map<Long, String> nodeOf = new TreeMap<>();
            Map<Long, double[]> span = new TreeMap<>();
            for (Received r : e.getValue()) {
                assertNotEquals(-1, r.epoch(), "every message carries an epoch");
                assertTrue(r.epoch() >= epoch, who + ", " + e.getKey() + ": epoch " + r.epoch() + " after " + epoch);
                epoch = r.epoch();
                String prev = nodeOf.putIfAbsent(r.epoch(), r.node());
                assertEquals(prev == null ? r.node() : prev, r.node(), who + ", " + e.getKey() + ": epoch " + r.epoch() + " from two nodes");
                double[] s = span.computeIfAbsent(r.epoch(), k -> new double[]{Double.MAX_VALUE, -Double.MAX_VALUE});
                s[0] = Math.min(s[0], r.captureTime());
                s[1] = Math.max(s[1], r.captureTime());
            }
            double[] before = null;
            for (var s : span.entrySet()) {
                if (before != null) {
                    assertTrue(before[1] < s.getValue()[0], who + ", " + e.getKey() + ": epoch " + s.getKey() + " starts at capture time "
                            + s.getValue()[0] + " before the previous owner's last frame " + before[1]);
                }
                before = s.getValue();
            }
            epochs.put(e.getKey(), nodeOf);
        }
        return epochs;
    }

    static long count(List<Received> received, String camera) {
        return received.stream().filter(r -> r.camera().equals(camera)).count();
    }
}
