package io.argus.pipeline.recording;

import io.argus.pipeline.config.CameraConfig;
import io.argus.recording.DetectionLog;
import io.argus.recording.PacketSink;
import io.argus.recording.Segment;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/** The recordings of this node: where cameras hand their packets, what was recorded, and the storage's state. */
public interface Recordings {
    /**
     * Where {@code camera}'s reader hands its packets: its recorder when its {@code record:} is on (made on first
     * use), else a sink that takes nothing. Called from the camera's thread; never blocks.
     */
    PacketSink sinkFor(CameraConfig camera);

    /** The camera was removed or stopped for good: its recorder finishes its segment and goes. */
    void stopped(String camera);

    /** The longest clip one request may ask for: its work (disk reads) and its file stay bounded. */
    long MAX_CLIP_MS = 3_600_000L;

    /** A clip of a camera's recording: its file and what is in it (wall-clock span of its pictures, packets). */
    record Clip(Path file, long fromMs, long toMs, long packets, long bytes, String cutShort) {}

    /** {@code camera}'s segments overlapping [fromMs, toMs), oldest first, at most {@code limit}. */
    Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit);

    /**
     * {@code camera}'s recorded time overlapping [fromMs, toMs), its segments joined where they meet within a second,
     * oldest first, at most {@code limit} (one more in the list when there are more): a week on one timeline.
     */
    Future<List<io.argus.recording.SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit);

    /** Whether {@code camera}'s packets are recorded here (its {@code record:} is on and the storage opened). */
    boolean records(String camera);

    /**
     * [fromMs, toMs) of {@code camera}'s recording as one MP4 (stream copy from the keyframe at or before fromMs); at
     * most {@link #MAX_CLIP_MS}. Fails with a {@link java.util.NoSuchElementException} when nothing of it is recorded.
     */
    Future<Clip> clip(String camera, long fromMs, long toMs);

    /**
     * The clip of an event of {@code camera} that started at {@code startMs} and ended at {@code endMs} (-1: still
     * open, the clip then runs to now): the camera's {@code preRollSeconds} before and {@code postRollSeconds} after.
     */
    Future<Clip> eventClip(String camera, long startMs, long endMs);

    /**
     * What an event's message says of its clip: {@code {"url", "from", "to"}} (epoch ms; to null while the event is
     * open), or null when {@code camera} is not recorded here. The clip refers to the segments; nothing is copied until
     * it is asked for.
     */
    JsonObject clipReference(String camera, String eventId, long startMs, long endMs);

    /** The file of segment {@code name} ({@code <camera>/<yyyy-MM-dd>/<ms>.mp4}), checked; a bad name fails. */
    Future<Path> file(String name);

    /** Per camera what its recorder counted, and the storage: bytes, free space, what retention deleted. */
    Future<JsonObject> status();

    /**
     * What the detector saw in {@code camera}'s recorded frames in [fromMs, toMs) (frames with a detection), oldest
     * first, at most {@code limit}: for drawing the boxes over playback.
     */
    Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit);

    /**
     * {@code camera}'s events kept with its recordings (the event log, which outlives the in-memory history) that
     * overlap [fromMs, toMs), newest first, at most {@code limit}.
     */
    Future<List<io.argus.recording.EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit);

    /** Event {@code id} as kept with its recording; fails with a {@link java.util.NoSuchElementException} when not kept. */
    Future<io.argus.recording.EventLog.Event> storedEvent(String id);

    /**
     * Starts an export of [fromMs, toMs) of several cameras (an MP4 each, stream copy, in the background; with
     * {@code boxes}, then re-encoded with the detector's boxes drawn in): its state, polled with {@link #export(String)}.
     * Fails with an {@link IllegalArgumentException} for a bad request, an {@link IllegalStateException} when too many
     * wait or boxes are asked for and no detection log is open.
     */
    Future<JsonObject> export(List<String> cameras, long fromMs, long toMs, boolean boxes);

    /** An export's state: queued, running, done or failed, progress (0 to 1), its files or why a camera has none. */
    Future<JsonObject> export(String id);

    /** Stops export {@code id} (queued: it never starts; running: it stops and keeps what it finished): its state. */
    Future<JsonObject> cancelExport(String id);

    /** The exports kept, newest first. */
    Future<io.vertx.core.json.JsonArray> exports();

    /** The file of {@code camera} in export {@code id}. */
    Future<Path> exportFile(String id, String camera);

    /** Nothing recorded here (recording of every camera off). */
    Recordings OFF = new Recordings() {
        @Override public PacketSink sinkFor(CameraConfig camera) { return PacketSink.NONE; }

        @Override public void stopped(String camera) {}

        @Override public Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit) { return Future.succeededFuture(List.of()); }

        @Override public boolean records(String camera) { return false; }

        @Override public Future<List<io.argus.recording.SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit) {
            return Future.succeededFuture(List.of());
        }

        @Override public Future<Clip> clip(String camera, long fromMs, long toMs) { return notRecorded(camera); }

        @Override public Future<Clip> eventClip(String camera, long startMs, long endMs) { return notRecorded(camera); }

        @Override public JsonObject clipReference(String camera, String eventId, long startMs, long endMs) { return null; }

        @Override public Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit) {
            return Future.succeededFuture(List.of());
        }

        @Override public Future<List<io.argus.recording.EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit) {
            return Future.succeededFuture(List.of());
        }

        @Override public Future<JsonObject> export(List<String> cameras, long fromMs, long toMs, boolean boxes) {
            return Future.failedFuture(new java.util.NoSuchElementException("nothing is recorded on this node"));
        }

        @Override public Future<JsonObject> export(String id) {
            return Future.failedFuture(new java.util.NoSuchElementException("no export " + id));
        }

        @Override public Future<io.argus.recording.EventLog.Event> storedEvent(String id) {
            return Future.failedFuture(new java.util.NoSuchElementException("no event " + id + " is kept here"));
        }

        @Override public Future<JsonObject> cancelExport(String id) {
            return Future.failedFuture(new java.util.NoSuchElementException("no export " + id));
        }

        @Override public Future<io.vertx.core.json.JsonArray> exports() { return Future.succeededFuture(new io.vertx.core.json.JsonArray()); }

        @Override public Future<Path> exportFile(String id, String camera) {
            return Future.failedFuture(new java.util.NoSuchElementException("no export " + id));
        }

        private Future<Clip> notRecorded(String camera) {
            return Future.failedFuture(new java.util.NoSuchElementException("nothing is recorded on this node"));
        }

        @Override public Future<Path> file(String name) {
            return Future.failedFuture(new IllegalArgumentException("nothing is recorded on this node"));
        }

        @Override public Future<JsonObject> status() { return Future.succeededFuture(new JsonObject().put("recording", false)); }
    };
}
