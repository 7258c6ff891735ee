package io.argus.pipeline.camera;

import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Live counters of one camera, written by its reader thread and the batcher, read by the API and metrics.
 * Rates (fps, decode ms) are computed by {@link #sample(long)} once a second.
 */
public final class CameraStats {
    public enum State { CONNECTING, STREAMING, BACKOFF, PAUSED, ENDED, STOPPED }

    final LongAdder decoded = new LongAdder();
    final LongAdder emitted = new LongAdder();
    final LongAdder droppedPool = new LongAdder();
    final LongAdder superseded = new LongAdder();
    final LongAdder reconnects = new LongAdder();
    final LongAdder stalls = new LongAdder();
    final AtomicLong decodeNanos = new AtomicLong();
    /** Times {@code decoder: auto} chose the CPU decoder over NVDEC; {@link #decoderNote} says why (the last reason). */
    final LongAdder nvdecFallbacks = new LongAdder();
    volatile String decoderNote;
    /** The decoder of the camera's current connection: "cpu" or "nvdec" (null until it first connected). */
    volatile String decoder;
    volatile State state = State.CONNECTING;
    volatile String lastError;
    volatile int width;
    volatile int height;
    volatile long lastFrameNanos;
    volatile long streamingSinceNanos;
    volatile double lastConnectMs = Double.NaN;
    /** From the start of the last connection that made a picture to its first picture (a keyframe's wait). */
    volatile double lastFirstPictureMs = Double.NaN;
    /** When the reader, backing off, next tries to connect (epoch ms); 0 when it is not waiting. */
    volatile long nextRetryAtMillis;

    // sampled rates
    private long lastSampleNanos = System.nanoTime();
    private long lastDecoded;
    private long lastDecodeNanos;
    private volatile double fps;
    private volatile double decodeMs;

    /** Updates fps and average decode time over the interval since the last call (called once a second). */
    public synchronized void sample(long nowNanos) {
        long d = decoded.sum();
        long dn = decodeNanos.get();
        double seconds = (nowNanos - lastSampleNanos) / 1e9;
        if (seconds <= 0) return;
        long frames = d - lastDecoded;
        fps = frames / seconds;
        decodeMs = frames > 0 ? (dn - lastDecodeNanos) / 1e6 / frames : decodeMs;
        lastSampleNanos = nowNanos;
        lastDecoded = d;
        lastDecodeNanos = dn;
    }

    public void superseded() { superseded.increment(); }

    public double fps() { return fps; }

    public double decodeMs() { return decodeMs; }

    public long decoded() { return decoded.sum(); }

    public long emitted() { return emitted.sum(); }

    public long droppedPool() { return droppedPool.sum(); }

    public long droppedSuperseded() { return superseded.sum(); }

    public long reconnects() { return reconnects.sum(); }

    public long stalls() { return stalls.sum(); }

    public long decodeNanosTotal() { return decodeNanos.get(); }

    public State state() { return state; }

    public String lastError() { return lastError; }

    public long nvdecFallbacks() { return nvdecFallbacks.sum(); }

    public String decoderNote() { return decoderNote; }

    public String decoder() { return decoder; }

    public double lastFirstPictureMs() { return lastFirstPictureMs; }

    public JsonObject toJson() {
        JsonObject j = new JsonObject()
                .put("state", state.name().toLowerCase(java.util.Locale.ROOT))
                .put("fps", round(fps))
                .put("decodeMs", round(decodeMs))
                .put("width", width).put("height", height)
                .put("framesDecoded", decoded.sum())
                .put("framesEmitted", emitted.sum())
                .put("dropped", new JsonObject().put("superseded", superseded.sum()).put("poolExhausted", droppedPool.sum()))
                .put("reconnects", reconnects.sum())
                .put("stalls", stalls.sum());
        if (!Double.isNaN(lastConnectMs)) j.put("lastConnectMs", round(lastConnectMs));
        if (!Double.isNaN(lastFirstPictureMs)) j.put("firstPictureMs", round(lastFirstPictureMs));
        if (lastError != null) j.put("lastError", lastError);
        long retryAt = nextRetryAtMillis;
        if (state == State.BACKOFF && retryAt > 0) {
            j.put("nextRetryAt", java.time.Instant.ofEpochMilli(retryAt).toString())
                    .put("nextRetryInMs", Math.max(0, retryAt - System.currentTimeMillis()));
        }
        if (decoder != null) j.put("decoderInUse", decoder);
        if (nvdecFallbacks.sum() > 0) j.put("nvdecFallbacks", nvdecFallbacks.sum()).put("decoderNote", decoderNote);
        return j;
    }

    static double round(double v) { return Math.round(v * 100) / 100.0; }
}
