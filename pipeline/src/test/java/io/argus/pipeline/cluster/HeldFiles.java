package io.argus.pipeline.cluster;

import io.argus.pipeline.recording.Recordings;
import io.argus.recording.DetectionLog;
import io.argus.recording.EventLog;
import io.argus.recording.Segment;
import io.argus.recording.SegmentIndex;
import io.argus.recording.StorageLayout;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's recordings for tests of the requests between nodes ({@link NodeRecordings}): one camera's segment of
 * random bytes under a storage directory, found by name as the real storage finds it, and a clip file; every call
 * counted, so a test sees that a refused request reached nothing.
 */
public final class HeldFiles implements NodeRecordings.Held {
    public static final String CAMERA = "cam";
    /** 3.5 MiB and a bit: three whole chunks and a short one. */
    public static final int SEGMENT_BYTES = (7 << 20) / 2 + 321;
    public static final long START_MS = 1_764_400_000_000L;

    public final StorageLayout layout;
    public final String segment;
    public final byte[] segmentBytes;
    public final Path clip;
    public final byte[] clipBytes;
    public final AtomicInteger calls = new AtomicInteger();
    /** The camera's frames with detections, oldest first (a test may replace them). */
    public volatile List<DetectionLog.Frame> frames = List.of(frame(START_MS + 40), frame(START_MS + 80), frame(START_MS + 1_200));
    /** The camera's stored events, newest first. */
    public volatile List<EventLog.Event> events = List.of(event("cam-1-1", START_MS + 1_500, -1), event("cam-1-0", START_MS + 100, START_MS + 900));
    /** The camera's recorded spans, oldest first. */
    public volatile List<SegmentIndex.Span> spans = List.of(new SegmentIndex.Span(START_MS, START_MS + 2_000));

    public static DetectionLog.Frame frame(long t) {
        return new DetectionLog.Frame(t, 640, 360, "[[\"person\",0.9,10,20,30,40,1]]");
    }

    public static EventLog.Event event(String id, long start, long end) {
        io.vertx.core.json.JsonObject e = new io.vertx.core.json.JsonObject().put("id", id).put("cameraId", CAMERA).put("start", start)
                .put("end", end < 0 ? null : end).put("className", "person");
        return new EventLog.Event(id, CAMERA, start, end, e.encode());
    }

    public HeldFiles(Path dir) throws IOException {
        layout = new StorageLayout(dir.resolve("recordings"));
        segment = layout.newSegmentName(CAMERA, START_MS);
        segmentBytes = new byte[SEGMENT_BYTES];
        new Random(11).nextBytes(segmentBytes);
        Files.write(layout.prepare(segment), segmentBytes);
        clip = dir.resolve("clip.mp4");
        clipBytes = new byte[1_500_000];
        new Random(12).nextBytes(clipBytes);
        Files.write(clip, clipBytes);
    }

    /** The clip made again: a new file moved over the old one, as the clip writer does. */
    public void remakeClip() throws IOException {
        Path again = clip.resolveSibling("clip.mp4.partial");
        Files.write(again, clipBytes);
        Files.move(again, clip, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit) {
        calls.incrementAndGet();
        Segment s = new Segment(CAMERA, segment, START_MS, START_MS + 2_000, SEGMENT_BYTES, 50);
        return Future.succeededFuture(CAMERA.equals(camera) && s.overlaps(fromMs, toMs) ? List.of(s) : List.of());
    }

    @Override
    public Future<Path> file(String name) {
        calls.incrementAndGet();
        try {
            Path f = layout.file(name);
            return Files.isRegularFile(f) ? Future.succeededFuture(f) : Future.failedFuture(new NoSuchElementException("no segment " + name));
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Recordings.Clip> clip(String camera, long fromMs, long toMs) {
        calls.incrementAndGet();
        if (!CAMERA.equals(camera)) return Future.failedFuture(new NoSuchElementException("nothing recorded of " + camera));
        return Future.succeededFuture(new Recordings.Clip(clip, fromMs, toMs - 1, 10, clipBytes.length, null));
    }

    @Override
    public Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit) {
        calls.incrementAndGet();
        return Future.succeededFuture(!CAMERA.equals(camera) ? List.of()
                : frames.stream().filter(f -> f.timeMs() >= fromMs && f.timeMs() < toMs).limit(limit).toList());
    }

    @Override
    public Future<List<EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit) {
        calls.incrementAndGet();
        return Future.succeededFuture(!CAMERA.equals(camera) ? List.of()
                : events.stream().filter(e -> e.startMs() < toMs && (e.endMs() < 0 || e.endMs() >= fromMs)).limit(limit).toList());
    }

    /** As the storage answers: at most {@code limit}, one more when there are more. */
    @Override
    public Future<List<SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit) {
        calls.incrementAndGet();
        return Future.succeededFuture(!CAMERA.equals(camera) ? List.of()
                : spans.stream().filter(s -> s.startMs() < toMs && (s.endMs() < 0 || s.endMs() > fromMs)).limit(limit + 1L).toList());
    }

    @Override
    public Future<io.vertx.core.json.JsonObject> status() {
        calls.incrementAndGet();
        return Future.succeededFuture(new io.vertx.core.json.JsonObject().put("recording", true)
                .put("cameras", new io.vertx.core.json.JsonObject().put(CAMERA, new io.vertx.core.json.JsonObject().put("mode", "continuous"))));
    }

    @Override
    public Future<Recordings.Clip> eventClip(String camera, long startMs, long endMs) {
        return clip(camera, startMs - 1_000, (endMs < 0 ? startMs : endMs) + 1_001);
    }
}
