package io.argus.pipeline.publish;

import io.argus.detector.BgrImage;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.ArgusConfig.SnapshotSettings;
import io.argus.pipeline.frames.VideoFrame;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * JPEG snapshots for the dashboard: at most {@code fps} per camera, encoded on one background thread (never the
 * inference thread or an event loop), the last few kept in memory per camera, and a notice published on
 * {@code argus.snapshots.<cameraId>} with the frame's detections so boxes can be drawn over exactly that frame.
 * When the encoder is behind, snapshots are skipped.
 */
public final class Snapshots implements AutoCloseable {
    /** One stored JPEG. */
    public record Snapshot(long frame, double captureTime, int width, int height, byte[] jpeg) {}

    private static final int KEEP = 3;
    private static final int MAX_PENDING = 2;

    private final SnapshotSettings settings;
    private final EventBus bus;
    private final long intervalNanos;
    private final ExecutorService encoder;
    private final AtomicInteger pending = new AtomicInteger();
    private final Map<String, Long> lastTaken = new ConcurrentHashMap<>();
    private final Map<String, ArrayDeque<Snapshot>> store = new ConcurrentHashMap<>();

    public Snapshots(SnapshotSettings settings, EventBus bus) {
        this.settings = settings;
        this.bus = bus;
        this.intervalNanos = settings.fps() > 0 ? (long) (1e9 / settings.fps()) : Long.MAX_VALUE;
        this.encoder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "argus-snapshots");
            t.setDaemon(true);
            t.setPriority(Thread.NORM_PRIORITY - 1);
            return t;
        });
    }

    /**
     * Offers a processed frame; takes a snapshot when one is due for its camera and the encoder has room.
     * The frame is retained while it is encoded; the caller keeps its own reference.
     */
    public void offer(VideoFrame frame, JsonObject detectionMessage) {
        if (settings.fps() <= 0) return;
        long now = System.nanoTime();
        Long last = lastTaken.get(frame.cameraId());
        if (last != null && now - last < intervalNanos) return;
        if (pending.get() >= MAX_PENDING) return;
        lastTaken.put(frame.cameraId(), now);
        pending.incrementAndGet();
        frame.retain();
        try {
            encoder.execute(() -> encode(frame, detectionMessage));
        } catch (RuntimeException e) { // executor shut down
            pending.decrementAndGet();
            frame.release();
        }
    }

    private void encode(VideoFrame frame, JsonObject message) {
        try {
            byte[] jpeg = jpeg(frame.image(), settings.maxWidth(), settings.quality());
            Snapshot s = new Snapshot(frame.number(), frame.captureTimeMs(), frame.image().width(), frame.image().height(), jpeg);
            ArrayDeque<Snapshot> q = store.computeIfAbsent(frame.cameraId(), k -> new ArrayDeque<>());
            synchronized (q) {
                q.addLast(s);
                while (q.size() > KEEP) q.removeFirst();
            }
            JsonObject notice = new JsonObject().put("type", "snapshot").put("cameraId", frame.cameraId())
                    .put("frame", frame.number()).put("captureTime", message.getValue("captureTime"))
                    .put("width", s.width()).put("height", s.height())
                    .put("url", "/api/cameras/" + frame.cameraId() + "/snapshots/" + frame.number() + ".jpg")
                    .put("detections", message.getJsonArray("detections", new JsonArray()))
                    .put("latency", message.getJsonObject("latency"));
            bus.publish(Addresses.snapshots(frame.cameraId()), notice);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the app is stopping (its event loops are gone): nobody is left to see the snapshot, nothing to warn about
            System.getLogger("argus.snapshots").log(Level.DEBUG, "snapshot of " + frame.cameraId() + " dropped: " + e);
        } catch (RuntimeException e) {
            System.getLogger("argus.snapshots").log(Level.WARNING, "snapshot of " + frame.cameraId() + " failed: " + e);
        } finally {
            frame.release();
            pending.decrementAndGet();
        }
    }

    /** BGR pixels to JPEG with OpenCV, scaled down to maxWidth (0: full size). */
    static byte[] jpeg(BgrImage img, int maxWidth, int quality) {
        try (PointerScope scope = new PointerScope()) {
            Mat src = new Mat(img.height(), img.width(), opencv_core.CV_8UC3, new BytePointer(img.pixels()), img.stride());
            Mat out = src;
            if (maxWidth > 0 && img.width() > maxWidth) {
                int h = Math.max(1, Math.round(img.height() * (maxWidth / (float) img.width())));
                out = new Mat();
                opencv_imgproc.resize(src, out, new Size(maxWidth, h), 0, 0, opencv_imgproc.INTER_AREA);
            }
            BytePointer buf = new BytePointer();
            if (!opencv_imgcodecs.imencode(".jpg", out, buf, new IntPointer(opencv_imgcodecs.IMWRITE_JPEG_QUALITY, quality))) {
                throw new IllegalStateException("JPEG encoding failed");
            }
            byte[] bytes = new byte[(int) buf.limit()];
            buf.get(bytes);
            return bytes;
        }
    }

    public Snapshot latest(String camera) {
        ArrayDeque<Snapshot> q = store.get(camera);
        if (q == null) return null;
        synchronized (q) {
            return q.peekLast();
        }
    }

    public Snapshot get(String camera, long frame) {
        ArrayDeque<Snapshot> q = store.get(camera);
        if (q == null) return null;
        synchronized (q) {
            for (Snapshot s : q) if (s.frame() == frame) return s;
        }
        return null;
    }

    public void forget(String camera) {
        store.remove(camera);
        lastTaken.remove(camera);
    }

    public int pending() { return pending.get(); }

    @Override
    public void close() { encoder.shutdown(); }
}
