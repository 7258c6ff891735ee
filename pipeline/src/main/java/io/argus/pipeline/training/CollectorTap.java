package io.argus.pipeline.training;

import io.argus.detector.BgrImage;
import io.argus.detector.Detection;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.inference.FrameTap;
import io.argus.pipeline.inference.LoadedModel;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The collector's hook on the inference thread. It costs nothing for most frames: per camera at most one candidate
 * per {@code candidateIntervalMs} is copied (pixels to the heap, so no pooled buffer is held) and handed to the
 * collector's thread, and none while that thread is still busy with two. A camera can be asked to have its next frame
 * kept whatever the rules ({@link #captureNext}): only a camera of this model (the dataset verticle checks), at most
 * {@link #MAX_FORCED} at a time, and the request is {@link #cancel cancelled} when nobody waits for it any more, so
 * what a client asks for never stays here.
 */
final class CollectorTap implements FrameTap {
    private static final int MAX_PENDING = 2;
    /** Cameras with a capture request at once: above any camera count one model serves. */
    static final int MAX_FORCED = 256;

    private final boolean collecting;
    private final long candidateNanos;
    private final Executor executor;
    private final Consumer<FrameCollector.Candidate> sink;
    private final Map<String, Long> lastCandidate = new ConcurrentHashMap<>();
    private final Map<String, Boolean> forced = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();

    CollectorTap(boolean collecting, long candidateIntervalMs, Executor executor, Consumer<FrameCollector.Candidate> sink) {
        this.collecting = collecting;
        this.candidateNanos = TimeUnit.MILLISECONDS.toNanos(candidateIntervalMs);
        this.executor = executor;
        this.sink = sink;
    }

    /** The next processed frame of {@code camera} is kept, whatever the collection rules; false when too many wait. */
    boolean captureNext(String camera) {
        if (forced.size() >= MAX_FORCED && !forced.containsKey(camera)) return false;
        forced.put(camera, Boolean.TRUE);
        return true;
    }

    /** Nobody waits for a frame of {@code camera} any more (the requests timed out, the camera went away). */
    void cancel(String camera) { forced.remove(camera); }

    /** {@code camera} was removed: nothing is kept for it. */
    void cameraGone(String camera) {
        forced.remove(camera);
        lastCandidate.remove(camera);
    }

    /** Cameras whose next frame is to be kept. */
    int forcedCount() { return forced.size(); }

    @Override
    public void offer(VideoFrame frame, List<Detection> detections, LoadedModel servedBy) {
        String camera = frame.cameraId();
        boolean force = !forced.isEmpty() && forced.remove(camera) != null;
        if (!force) {
            if (!collecting || pending.get() >= MAX_PENDING) return;
            long now = System.nanoTime();
            Long last = lastCandidate.get(camera);
            if (last != null && now - last < candidateNanos) return;
            lastCandidate.put(camera, now);
        }
        FrameCollector.Candidate c = new FrameCollector.Candidate(camera, frame.number(), frame.ptsMs(),
                frame.captureTimeMs(), copy(frame.image()), List.copyOf(detections),
                confidence(detections, servedBy.config().threshold()), servedBy.version(), force);
        pending.incrementAndGet();
        try {
            executor.execute(() -> {
                try {
                    sink.accept(c);
                } finally {
                    pending.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException e) {
            pending.decrementAndGet(); // shutting down
        }
    }

    /** The least confident detection; the threshold when there is none (nothing found may be a miss). */
    static double confidence(List<Detection> detections, float threshold) {
        double min = threshold;
        boolean any = false;
        for (Detection d : detections) {
            min = any ? Math.min(min, d.confidence()) : d.confidence();
            any = true;
        }
        return min;
    }

    /** A tightly packed heap copy of the pixels. */
    static BgrImage copy(BgrImage img) {
        byte[] out = new byte[img.width() * img.height() * 3];
        ByteBuffer src = img.pixels();
        int row = img.width() * 3;
        for (int y = 0; y < img.height(); y++) src.get(y * img.stride(), out, y * row, row);
        return BgrImage.of(img.width(), img.height(), out);
    }
}
