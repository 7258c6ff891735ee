package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.recording.Recordings;
import io.argus.recording.DetectionLog;
import io.argus.recording.EventLog;
import io.argus.recording.Segment;
import io.argus.recording.SegmentIndex;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * This node's recordings for the other nodes of the cluster. Each node records the cameras it runs into its own
 * storage; after a failover a camera's older recordings are on its former node. Another node asks this one on
 * {@code argus.node.<this node>.recordings} ({@link Addresses#nodeRecordings}) with a {@link RecordingQuery}: a
 * camera's segments (JSON {@code {"segments": [{"name", "startMs", "endMs", "bytes", "packets"}]}}), a chunk of a
 * segment (a {@link Buffer} of at most {@value RecordingQuery#CHUNK_BYTES} bytes, the file's size in the {@value #SIZE}
 * header), or a clip made here by this node's clip writer ({@code {"clip": token, "from", "to", "bytes"}}), whose
 * chunks it then reads by that token. A malformed request gets 400 and nothing is done for it; a segment or clip not
 * here 404; a busy clip writer 503. Names only, never paths: a segment is resolved under the storage directory by
 * {@link Recordings#file}, a clip by its token to the file this node made. The request travels on the clustered event
 * bus, whose members proved the cluster secret; a node's HTTP address and its API token play no part.
 *
 * <p>The lists kept with the recording ({@link RecordingQuery.Detections}, {@link RecordingQuery.StoredEvents},
 * {@link RecordingQuery.Spans}) and the storage status ({@link RecordingQuery.Status}) are answered as a {@link Buffer}
 * of encoded JSON of at most {@link RecordingQuery#ANSWER_BYTES}: a list stops short of it and says {@code "more"},
 * so the asker can refuse anything larger before reading it.
 */
public final class NodeRecordings extends VerticleBase {
    /** Reply header: the size of the whole file a chunk is of. */
    public static final String SIZE = "size";
    /** Clips made for other nodes and still readable by their token; the least recently read goes first. */
    static final int CLIPS_HELD = 64;
    /** How long a clip's token stays readable after its last read. */
    static final long CLIP_HELD_MS = 10 * 60_000L;
    /** At most this much of a reason goes into a failure reply. */
    private static final int REASON_MAX = 300;

    /** What this node holds: its recordings, as {@link Recordings} gives them. */
    public interface Held {
        Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit);

        Future<Path> file(String name);

        Future<Recordings.Clip> clip(String camera, long fromMs, long toMs);

        Future<Recordings.Clip> eventClip(String camera, long startMs, long endMs);

        Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit);

        Future<List<EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit);

        Future<List<SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit);

        Future<JsonObject> status();

        static Held of(Recordings r) {
            return new Held() {
                @Override public Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit) {
                    return r.segments(camera, fromMs, toMs, limit);
                }

                @Override public Future<Path> file(String name) { return r.file(name); }

                @Override public Future<Recordings.Clip> clip(String camera, long fromMs, long toMs) { return r.clip(camera, fromMs, toMs); }

                @Override public Future<Recordings.Clip> eventClip(String camera, long startMs, long endMs) {
                    return r.eventClip(camera, startMs, endMs);
                }

                @Override public Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit) {
                    return r.detections(camera, fromMs, toMs, limit);
                }

                @Override public Future<List<EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit) {
                    return r.storedEvents(camera, fromMs, toMs, limit);
                }

                @Override public Future<List<SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit) {
                    return r.spans(camera, fromMs, toMs, limit);
                }

                @Override public Future<JsonObject> status() { return r.status(); }
            };
        }
    }

    /** A clip made for another node: its file as it was then (a clip made again replaces the file: reads then fail). */
    private record HeldClip(Path file, Object key, long lastRead) {}

    private final String node;
    private final Held held;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, HeldClip> clips = new LinkedHashMap<>(16, 0.75f, true);
    private MessageConsumer<Object> consumer;

    public NodeRecordings(String node, Held held) {
        this.node = node;
        this.held = held;
    }

    @Override
    public Future<?> start() {
        consumer = vertx.eventBus().consumer(Addresses.nodeRecordings(node), this::answer);
        return consumer.completion();
    }

    @Override
    public Future<?> stop() { return consumer.unregister(); }

    void answer(Message<Object> m) {
        RecordingQuery q;
        try {
            q = RecordingQuery.from(m.body());
        } catch (IllegalArgumentException e) {
            m.fail(400, bounded("recordings request: " + e.getMessage()));
            return;
        }
        Future<?> answered = switch (q) {
            case RecordingQuery.Segments s -> held.segments(s.camera(), s.fromMs(), s.toMs(), s.limit()).map(list -> {
                m.reply(listed(list, s.limit()));
                return null;
            });
            case RecordingQuery.Read r -> read(r).map(chunk -> {
                m.reply(chunk.bytes(), new DeliveryOptions().addHeader(SIZE, Long.toString(chunk.size())));
                return null;
            });
            case RecordingQuery.RangeClip c -> held.clip(c.camera(), c.fromMs(), c.toMs()).compose(this::hold).map(reply -> {
                m.reply(reply);
                return null;
            });
            case RecordingQuery.EventClip e -> held.eventClip(e.camera(), e.startMs(), e.endMs()).compose(this::hold).map(reply -> {
                m.reply(reply);
                return null;
            });
            // one more than asked: whether there are more
            case RecordingQuery.Detections d -> held.detections(d.camera(), d.fromMs(), d.toMs(), d.limit() + 1)
                    .map(frames -> replied(m, frames(frames, d.limit())));
            case RecordingQuery.StoredEvents e -> held.storedEvents(e.camera(), e.fromMs(), e.toMs(), e.limit() + 1)
                    .map(events -> replied(m, events(events, e.limit())));
            case RecordingQuery.Spans s -> held.spans(s.camera(), s.fromMs(), s.toMs(), s.limit())
                    .map(spans -> replied(m, spans(spans, s.limit())));
            case RecordingQuery.Status s -> held.status().map(status -> {
                Buffer encoded = status.toBuffer();
                if (encoded.length() > RecordingQuery.ANSWER_BYTES) {
                    throw new IllegalStateException("the status is " + encoded.length() + " bytes, over " + RecordingQuery.ANSWER_BYTES);
                }
                m.reply(encoded);
                return null;
            });
        };
        answered.onFailure(e -> m.fail(status(e), bounded(q.describe() + " on node " + node + ": " + e.getMessage())));
    }

    private static JsonObject listed(List<Segment> segments, int limit) {
        JsonArray out = new JsonArray();
        for (Segment s : segments.subList(0, Math.min(limit, segments.size()))) {
            out.add(new JsonObject().put("name", s.name()).put("startMs", s.startMs()).put("endMs", s.endMs())
                    .put("bytes", s.bytes()).put("packets", s.packets()));
        }
        return new JsonObject().put("segments", out);
    }

    private static Void replied(Message<Object> m, JsonObject answer) {
        m.reply(answer.toBuffer());
        return null;
    }

    /** Room left for the items of a list answer (its other fields are a few dozen bytes). */
    private static final int ITEMS_BYTES = RecordingQuery.ANSWER_BYTES - 1024;

    /**
     * {@code {"frames": [{"t", "width", "height", "boxes"}], "more"}}: the first {@code limit} frames (fewer when the
     * answer would outgrow {@link RecordingQuery#ANSWER_BYTES}), more when there were more.
     */
    public static JsonObject frames(List<DetectionLog.Frame> frames, int limit) {
        JsonArray out = new JsonArray();
        long bytes = 0;
        boolean more = frames.size() > limit;
        for (DetectionLog.Frame f : frames.subList(0, Math.min(limit, frames.size()))) {
            JsonObject item = new JsonObject().put("t", f.timeMs()).put("width", f.width()).put("height", f.height())
                    .put("boxes", new JsonArray(f.boxes()));
            bytes += item.toBuffer().length() + 1;
            if (bytes > ITEMS_BYTES) {
                more = true;
                break;
            }
            out.add(item);
        }
        return new JsonObject().put("frames", out).put("more", more);
    }

    /** {@code {"events": [event], "more"}}: the first {@code limit} events, newest first, within the answer's size. */
    public static JsonObject events(List<EventLog.Event> events, int limit) {
        JsonArray out = new JsonArray();
        long bytes = 0;
        boolean more = events.size() > limit;
        for (EventLog.Event e : events.subList(0, Math.min(limit, events.size()))) {
            JsonObject item = new JsonObject(e.json());
            bytes += item.toBuffer().length() + 1;
            if (bytes > ITEMS_BYTES) {
                more = true;
                break;
            }
            out.add(item);
        }
        return new JsonObject().put("events", out).put("more", more);
    }

    /** {@code {"spans": [[start, end or -1]], "more"}}: the first {@code limit} spans (a span is at most 33 bytes). */
    public static JsonObject spans(List<SegmentIndex.Span> spans, int limit) {
        JsonArray out = new JsonArray();
        for (SegmentIndex.Span s : spans.subList(0, Math.min(limit, spans.size()))) out.add(new JsonArray().add(s.startMs()).add(s.endMs()));
        return new JsonObject().put("spans", out).put("more", spans.size() > limit);
    }

    private record Chunk(long size, Buffer bytes) {}

    private Future<Chunk> read(RecordingQuery.Read r) {
        if (r.segment() != null) {
            return held.file(r.segment()).compose(file -> vertx.executeBlocking(() -> chunk(file, r), false));
        }
        HeldClip c = touch(r.clip());
        if (c == null) {
            return Future.failedFuture(new NoSuchElementException("no clip " + r.clip() + " here (made for another node more than "
                    + CLIP_HELD_MS / 60_000 + " min ago, or never)"));
        }
        return vertx.executeBlocking(() -> {
            if (!c.key().equals(key(c.file()))) throw new NoSuchElementException("clip " + r.clip() + " was made again since");
            return chunk(c.file(), r);
        }, false);
    }

    /** At most {@code r.length()} bytes of {@code file} from {@code r.offset()} (blocking: on a worker). */
    private static Chunk chunk(Path file, RecordingQuery.Read r) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (r.offset() > size) {
                throw new IllegalArgumentException("offset: " + r.offset() + " is past the end of " + r.describe() + " (" + size + " bytes)");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(r.length(), size - r.offset()));
            while (bytes.hasRemaining() && ch.read(bytes, r.offset() + bytes.position()) >= 0) {
                // reads until the chunk is full (a read may return less)
            }
            bytes.flip();
            return new Chunk(size, Buffer.buffer(java.util.Arrays.copyOf(bytes.array(), bytes.limit())));
        }
    }

    /** Keeps a clip made for another node readable by a token of its own; answers with the token and the clip's span. */
    private Future<JsonObject> hold(Recordings.Clip clip) {
        return vertx.executeBlocking(() -> {
            Object key = key(clip.file());
            long bytes = Files.size(clip.file());
            String token = HexFormat.of().formatHex(bytes16());
            synchronized (clips) {
                clips.put(token, new HeldClip(clip.file(), key, System.currentTimeMillis()));
                while (clips.size() > CLIPS_HELD) clips.remove(clips.keySet().iterator().next());
            }
            return new JsonObject().put("clip", token).put("from", clip.fromMs()).put("to", clip.toMs()).put("bytes", bytes);
        }, false);
    }

    private byte[] bytes16() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return b;
    }

    /** The clip of {@code token}, its last read now; null when unknown or not read for {@link #CLIP_HELD_MS}. */
    private HeldClip touch(String token) {
        long now = System.currentTimeMillis();
        synchronized (clips) {
            clips.values().removeIf(c -> now - c.lastRead() > CLIP_HELD_MS);
            HeldClip c = clips.get(token);
            if (c == null) return null;
            HeldClip read = new HeldClip(c.file(), c.key(), now);
            clips.put(token, read);
            return read;
        }
    }

    /** What identifies the file itself (its inode), not its name: a clip made again is a new file under the same name. */
    private static Object key(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return a.fileKey() != null ? a.fileKey() : a.lastModifiedTime().toMillis() + "/" + a.size();
    }

    /** The failure's status for the asking node: 404 nothing of it here, 400 a bad request, 503 busy, 500 anything else. */
    private static int status(Throwable e) {
        if (e instanceof NoSuchElementException) return 404;
        if (e instanceof IllegalStateException) return 503;
        if (e instanceof java.nio.file.NoSuchFileException) return 404;
        int s = RequestRefused.statusOf(e);
        return s >= 400 && s < 600 ? s : 500;
    }

    private static String bounded(String reason) {
        return reason.length() <= REASON_MAX ? reason : reason.substring(0, REASON_MAX) + "...";
    }
}
