package io.argus.pipeline.load;

import java.util.Arrays;

/** Latency samples of one phase of the run (baseline, load), in ms; percentiles by sorting, at the end. */
final class Latencies {
    private double[] delivery = new double[1 << 16];
    private int deliveryCount;
    private double[] server = new double[1 << 12];
    private int serverCount;
    private double[] inference = new double[1 << 12];
    private int inferenceCount;
    private volatile boolean recording;

    void recording(boolean on) { recording = on; }

    /** Capture (the camera's captureTime) to receipt by a client. */
    synchronized void delivery(double ms) {
        if (!recording) return;
        if (deliveryCount == delivery.length) delivery = Arrays.copyOf(delivery, delivery.length * 2);
        delivery[deliveryCount++] = ms;
    }

    /** Capture to publication, as the server measured it (the message's latency.totalMs). */
    synchronized void server(double ms) {
        if (!recording || Double.isNaN(ms)) return;
        if (serverCount == server.length) server = Arrays.copyOf(server, server.length * 2);
        server[serverCount++] = ms;
    }

    /** The message's latency.inferenceMs: the detector's share, which only CPU contention moves. */
    synchronized void inference(double ms) {
        if (!recording || Double.isNaN(ms)) return;
        if (inferenceCount == inference.length) inference = Arrays.copyOf(inference, inference.length * 2);
        inference[inferenceCount++] = ms;
    }

    synchronized double inferencePercentile(double p) { return percentile(inference, inferenceCount, p); }

    synchronized int deliveryCount() { return deliveryCount; }

    synchronized int serverCount() { return serverCount; }

    synchronized double deliveryPercentile(double p) { return percentile(delivery, deliveryCount, p); }

    synchronized double serverPercentile(double p) { return percentile(server, serverCount, p); }

    /**
     * Of the samples from fraction {@code from} to {@code to} of the phase, in arrival order (the probes' messages come
     * at the cameras' steady rate, so a third of the samples is about a third of the time).
     */
    synchronized double serverPercentile(double p, double from, double to) {
        int a = (int) (from * serverCount), b = (int) (to * serverCount);
        return percentile(Arrays.copyOfRange(server, a, b), b - a, p);
    }

    private static double percentile(double[] values, int n, double p) {
        if (n == 0) return Double.NaN;
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return sorted[Math.min(n - 1, (int) Math.ceil(p / 100 * n) - 1)];
    }
}
