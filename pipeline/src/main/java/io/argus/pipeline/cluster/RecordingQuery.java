package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.argus.pipeline.recording.Recordings;
import io.argus.recording.StorageLayout;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * What one node asks another about its recordings ({@link NodeRecordings}): a camera's segments in a time range, a
 * chunk of a segment or of a clip made there for the asker, or a clip to make (a time range, or an event's span with
 * the camera's rolls). The asking node builds it from a REST request; the answering node reads it back with
 * {@link #from}, which checks every field, because a request from the cluster is as hostile as one from the network
 * until checked: names only (a segment's {@code <camera>/<yyyy-MM-dd>/<ms>.mp4}, a clip's token), never a path;
 * whole numbers in range; a chunk of at most {@link #CHUNK_BYTES}. The lists kept with the recording (a range's
 * detections, its stored events, its recorded spans) and the node's storage status are answered as encoded JSON of at
 * most {@link #ANSWER_BYTES}, so the asker can refuse a larger one before reading it.
 */
public sealed interface RecordingQuery {
    /** The most one chunk holds, asked or sent: every message stays small, and the receiver holds one at a time. */
    int CHUNK_BYTES = 1 << 20;
    /** The most segments one list request may ask for (the REST list's limit, plus one to tell whether there are more). */
    int MAX_SEGMENTS = 10_001;
    /** Epoch milliseconds and byte offsets: at most 15 digits, as the REST API takes them. */
    long MAX_NUMBER = 999_999_999_999_999L;
    /** The longest range of detections one request reads (10 min: 15,000 frames at 25 fps), as the REST API does. */
    long DETECTIONS_MS = 600_000;
    /** The most frames of detections one request may ask for. */
    int MAX_FRAMES = 20_000;
    /** The most stored events one request may ask for (newest first). */
    int MAX_EVENTS = 1_000;
    /** The most spans of recorded time one request may ask for. */
    int MAX_SPANS = 10_000;
    /**
     * The most one answer of detections, events, spans or status holds, encoded: the answering node stops its list
     * short of it (and says there is more), the asking node refuses a larger one unread.
     */
    int ANSWER_BYTES = 8 << 20;

    JsonObject toJson();

    /** For messages: what was asked. */
    String describe();

    /** {@code camera}'s segments overlapping [fromMs, toMs), oldest first, at most {@code limit}. */
    record Segments(String camera, long fromMs, long toMs, int limit) implements RecordingQuery {
        public Segments {
            Names.require("camera id", camera);
            number("from", fromMs);
            number("to", toMs);
            if (fromMs > toMs) throw new IllegalArgumentException("from (" + fromMs + ") is after to (" + toMs + ")");
            if (limit < 1 || limit > MAX_SEGMENTS) {
                throw new IllegalArgumentException("limit: expected 1 to " + MAX_SEGMENTS + ", found " + limit);
            }
        }

        @Override public JsonObject toJson() {
            return new JsonObject().put("action", "segments").put("camera", camera).put("from", fromMs).put("to", toMs)
                    .put("limit", limit);
        }

        @Override public String describe() { return "segments of camera " + Names.quoted(camera); }
    }

    /**
     * {@code length} bytes (0 to {@link #CHUNK_BYTES}; fewer at the file's end) from {@code offset} of a segment
     * ({@code segment}, its name) or of a clip the node made for the asker ({@code clip}, the token it answered with):
     * exactly one of the two.
     */
    record Read(String segment, String clip, long offset, int length) implements RecordingQuery {
        private static final Pattern TOKEN = Pattern.compile("[0-9a-f]{32}");

        public Read {
            if ((segment == null) == (clip == null)) {
                throw new IllegalArgumentException("expected either a segment or a clip to read, found "
                        + (segment == null ? "neither" : "both"));
            }
            if (segment != null && !StorageLayout.isSegmentName(segment)) {
                throw new IllegalArgumentException("segment: expected <camera>/<yyyy-MM-dd>/<start ms>.mp4, found " + Names.quoted(segment));
            }
            if (clip != null && !TOKEN.matcher(clip).matches()) {
                throw new IllegalArgumentException("clip: expected the 32 hex digits of a clip's token, found " + Names.quoted(clip));
            }
            number("offset", offset);
            if (length < 0 || length > CHUNK_BYTES) {
                throw new IllegalArgumentException("length: expected 0 to " + CHUNK_BYTES + " bytes, found " + length);
            }
        }

        public static Read segment(String name, long offset, int length) { return new Read(name, null, offset, length); }

        public static Read clip(String token, long offset, int length) { return new Read(null, token, offset, length); }

        @Override public JsonObject toJson() {
            JsonObject j = new JsonObject().put("action", "read");
            if (segment != null) j.put("segment", segment);
            else j.put("clip", clip);
            return j.put("offset", offset).put("length", length);
        }

        @Override public String describe() { return segment != null ? "segment " + segment : "clip " + clip; }
    }

    /** [fromMs, toMs) of {@code camera} as one MP4, made there; at most {@link Recordings#MAX_CLIP_MS}. */
    record RangeClip(String camera, long fromMs, long toMs) implements RecordingQuery {
        public RangeClip {
            Names.require("camera id", camera);
            number("from", fromMs);
            number("to", toMs);
            if (toMs <= fromMs || toMs - fromMs > Recordings.MAX_CLIP_MS) {
                throw new IllegalArgumentException("from, to: expected from < to, at most " + Recordings.MAX_CLIP_MS
                        + " ms apart, found " + fromMs + ", " + toMs);
            }
        }

        @Override public JsonObject toJson() {
            return new JsonObject().put("action", "clip").put("camera", camera).put("from", fromMs).put("to", toMs);
        }

        @Override public String describe() { return "a clip of camera " + Names.quoted(camera) + " from " + fromMs + " to " + toMs; }
    }

    /**
     * The clip of an event of {@code camera} that started at {@code startMs} and ended at {@code endMs} (-1: still
     * open), with the camera's rolls as the answering node knows them.
     */
    record EventClip(String camera, long startMs, long endMs) implements RecordingQuery {
        public EventClip {
            Names.require("camera id", camera);
            number("start", startMs);
            if (endMs != -1) number("end", endMs);
            if (endMs != -1 && endMs < startMs) {
                throw new IllegalArgumentException("end: expected -1 (open) or at least the start " + startMs + ", found " + endMs);
            }
        }

        @Override public JsonObject toJson() {
            return new JsonObject().put("action", "event-clip").put("camera", camera).put("start", startMs).put("end", endMs);
        }

        @Override public String describe() { return "the clip of an event of camera " + Names.quoted(camera) + " at " + startMs; }
    }

    /**
     * What the detector saw in {@code camera}'s frames in [fromMs, toMs) (at most {@link #DETECTIONS_MS} long), oldest
     * first, at most {@code limit}: {@code {"frames": [{"t", "width", "height", "boxes"}], "more"}}.
     */
    record Detections(String camera, long fromMs, long toMs, int limit) implements RecordingQuery {
        public Detections {
            Names.require("camera id", camera);
            number("from", fromMs);
            number("to", toMs);
            if (toMs <= fromMs || toMs - fromMs > DETECTIONS_MS) {
                throw new IllegalArgumentException("from, to: expected from < to, at most " + DETECTIONS_MS + " ms apart, found "
                        + fromMs + ", " + toMs);
            }
            requireLimit(limit, MAX_FRAMES);
        }

        @Override public JsonObject toJson() { return listJson("detections", camera, fromMs, toMs, limit); }

        @Override public String describe() { return "detections of camera " + Names.quoted(camera); }
    }

    /**
     * {@code camera}'s events kept with its recording overlapping [fromMs, toMs), newest first, at most {@code limit}:
     * {@code {"events": [event], "more"}}.
     */
    record StoredEvents(String camera, long fromMs, long toMs, int limit) implements RecordingQuery {
        public StoredEvents {
            Names.require("camera id", camera);
            range(fromMs, toMs);
            requireLimit(limit, MAX_EVENTS);
        }

        @Override public JsonObject toJson() { return listJson("events", camera, fromMs, toMs, limit); }

        @Override public String describe() { return "stored events of camera " + Names.quoted(camera); }
    }

    /**
     * {@code camera}'s recorded time overlapping [fromMs, toMs) as joined spans, oldest first, at most {@code limit}:
     * {@code {"spans": [[start, end or -1]], "more"}}.
     */
    record Spans(String camera, long fromMs, long toMs, int limit) implements RecordingQuery {
        public Spans {
            Names.require("camera id", camera);
            range(fromMs, toMs);
            requireLimit(limit, MAX_SPANS);
        }

        @Override public JsonObject toJson() { return listJson("spans", camera, fromMs, toMs, limit); }

        @Override public String describe() { return "spans of camera " + Names.quoted(camera); }
    }

    /** The node's storage status, as its {@code GET /api/recordings} answers it. */
    record Status() implements RecordingQuery {
        @Override public JsonObject toJson() { return new JsonObject().put("action", "status"); }

        @Override public String describe() { return "the recording status"; }
    }

    /** A request from another node, every field checked; an {@link IllegalArgumentException} names the bad one. */
    static RecordingQuery from(Object body) {
        if (!(body instanceof JsonObject j)) {
            throw new IllegalArgumentException("expected a JSON object {\"action\": \"segments\"|\"read\"|\"clip\"|\"event-clip\"|"
                    + "\"detections\"|\"events\"|\"spans\"|\"status\", ...}, found "
                    + (body == null ? "nothing" : body.getClass().getSimpleName()));
        }
        Object action = j.getValue("action");
        return switch (action instanceof String a ? a : "") {
            case "segments" -> new Segments(text(j, "camera"), whole(j, "from"), whole(j, "to"), (int) bounded(j, "limit", MAX_SEGMENTS));
            case "read" -> new Read(optionalText(j, "segment"), optionalText(j, "clip"), whole(j, "offset"),
                    (int) bounded(j, "length", CHUNK_BYTES));
            case "clip" -> new RangeClip(text(j, "camera"), whole(j, "from"), whole(j, "to"));
            case "event-clip" -> new EventClip(text(j, "camera"), whole(j, "start"), whole(j, "end"));
            case "detections" -> new Detections(text(j, "camera"), whole(j, "from"), whole(j, "to"), (int) bounded(j, "limit", MAX_FRAMES));
            case "events" -> new StoredEvents(text(j, "camera"), whole(j, "from"), whole(j, "to"), (int) bounded(j, "limit", MAX_EVENTS));
            case "spans" -> new Spans(text(j, "camera"), whole(j, "from"), whole(j, "to"), (int) bounded(j, "limit", MAX_SPANS));
            case "status" -> new Status();
            default -> throw new IllegalArgumentException("action: expected segments, read, clip, event-clip, detections, events, "
                    + "spans or status, found "
                    + Names.quoted(String.valueOf(action)));
        };
    }

    private static String text(JsonObject j, String key) {
        String s = optionalText(j, key);
        if (s == null) throw new IllegalArgumentException(key + ": expected a string, found nothing");
        return s;
    }

    private static String optionalText(JsonObject j, String key) {
        Object v = j.getValue(key);
        if (v == null || v instanceof String) return (String) v;
        throw new IllegalArgumentException(key + ": expected a string, found " + Names.quoted(String.valueOf(v)));
    }

    /** A whole number (JSON integer); -1 or more (an open event's end is -1; the records check the rest). */
    private static long whole(JsonObject j, String key) {
        Object v = j.getValue(key);
        if (!(v instanceof Integer || v instanceof Long)) {
            throw new IllegalArgumentException(key + ": expected a whole number, found " + Names.quoted(String.valueOf(v)));
        }
        long n = ((Number) v).longValue();
        if (n < -1 || n > MAX_NUMBER) throw new IllegalArgumentException(key + ": expected 0 to " + MAX_NUMBER + ", found " + n);
        return n;
    }

    /** A whole number of at most {@code max} (checked before the cast to int: a huge one is refused, not wrapped). */
    private static long bounded(JsonObject j, String key, long max) {
        long n = whole(j, key);
        if (n < 0 || n > max) throw new IllegalArgumentException(key + ": expected 0 to " + max + ", found " + n);
        return n;
    }

    private static void number(String what, long n) {
        if (n < 0 || n > MAX_NUMBER) throw new IllegalArgumentException(what + ": expected 0 to " + MAX_NUMBER + ", found " + n);
    }

    private static void range(long fromMs, long toMs) {
        number("from", fromMs);
        number("to", toMs);
        if (fromMs > toMs) throw new IllegalArgumentException("from (" + fromMs + ") is after to (" + toMs + ")");
    }

    private static void requireLimit(int n, int max) {
        if (n < 1 || n > max) throw new IllegalArgumentException("limit: expected 1 to " + max + ", found " + n);
    }

    private static JsonObject listJson(String action, String camera, long fromMs, long toMs, int limit) {
        return new JsonObject().put("action", action).put("camera", camera).put("from", fromMs).put("to", toMs).put("limit", limit);
    }
}
