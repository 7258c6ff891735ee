package io.argus.pipeline.http;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.cluster.NodeRecordings;
import io.argus.pipeline.cluster.RecordingQuery;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.recording.RecordingVerticle;
import io.argus.pipeline.recording.Recordings;
import io.argus.recording.Segment;
import io.argus.recording.StorageLayout;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * In a cluster, each node records the cameras it runs into its own storage, so after a failover a camera's older
 * recordings are on its former node and the newer on its new one; a dashboard or script on any node sees them all.
 * This node asks every member over the clustered event bus ({@link NodeRecordings}, never a node's self-declared HTTP
 * address, so the API token stays here):
 * <ul>
 * <li>a camera's list: every member's segments merged by start time, each naming its {@code node} (its URL carries it
 *     as {@code ?node=}); a member that does not answer within {@link #LIST_TIMEOUT_MS} (or answers nonsense) is named in
 *     {@code "unreachable"} instead of failing the list;</li>
 * <li>a segment of another node: fetched from it chunk by chunk ({@link RecordingQuery#CHUNK_BYTES} at most per message,
 *     each within {@link #CHUNK_TIMEOUT_MS}) and streamed to the client as it comes, one chunk in memory at a time and
 *     the next asked only once the client has taken the last; a byte range asks only the chunks it covers;</li>
 * <li>a clip (a time range, or an event's): made by the node holding most of its span, by that node's clip writer,
 *     within {@link #CLIP_TIMEOUT_MS}, then fetched as a segment is.</li>
 * </ul>
 * Every reply is checked before use: a segment list of at most the asked length with segment names of the camera, a
 * chunk of exactly the asked length, a size that fits.
 */
final class MemberRecordings {
    /** How long a member has to list its segments; then it is named unreachable. */
    static final long LIST_TIMEOUT_MS = 3_000;
    /** How long a member has to send one chunk (a read of at most 1 MiB). */
    static final long CHUNK_TIMEOUT_MS = 10_000;
    /** How long a member has to make a clip (its clip writer makes one at a time, an hour at most). */
    static final long CLIP_TIMEOUT_MS = 120_000;
    /** Segments asked of each member when choosing which one makes a clip (an hour of 2 s segments). */
    static final int HOLDER_SEGMENTS = 2_000;
    /** No recording file is larger (1 TiB): a size above comes from a node that is wrong. */
    private static final long MAX_FILE_BYTES = 1L << 40;
    private static final int REASON_MAX = 300;
    private static final System.Logger LOG = System.getLogger("argus.recording");

    private final Vertx vertx;
    private final String self;
    private final Supplier<List<String>> members;
    private final Recordings local;

    /**
     * @param self    this node's id
     * @param members the cluster's members' node ids (this one included)
     * @param local   this node's own recordings
     */
    MemberRecordings(Vertx vertx, String self, Supplier<List<String>> members, Recordings local) {
        this.vertx = vertx;
        this.self = self;
        this.members = members;
        this.local = local;
    }

    /** A segment as a member listed it. */
    private record Listed(String node, Segment segment) {}

    /** One member's segments, or why there are none from it (null: it answered). */
    private record FromNode(String node, List<Segment> segments, String failure) {}

    /**
     * {@code {"camera", "from", "to", "segments": [...], "more", "unreachable": [node ids]}}: the segments of every
     * member overlapping [from, to), oldest first, at most {@code limit}, more when there were more.
     */
    Future<JsonObject> list(String camera, long from, long to, int limit) {
        List<Future<FromNode>> asked = new ArrayList<>();
        asked.add(local.segments(camera, from, to, limit + 1).map(s -> new FromNode(self, s, null)));
        for (String node : others()) asked.add(segmentsOf(node, camera, from, to, limit + 1));
        return Future.all(asked).map(all -> {
            List<Listed> merged = new ArrayList<>();
            List<String> unreachable = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                FromNode n = all.resultAt(i);
                if (n.failure() != null) unreachable.add(n.node());
                else for (Segment s : n.segments()) merged.add(new Listed(n.node(), s));
            }
            merged.sort(Comparator.comparingLong((Listed l) -> l.segment().startMs()).thenComparing(Listed::node));
            JsonArray out = new JsonArray();
            for (Listed l : merged.subList(0, Math.min(limit, merged.size()))) {
                Segment s = l.segment();
                out.add(new JsonObject().put("name", s.name()).put("startMs", s.startMs()).put("endMs", s.endMs())
                        .put("complete", s.complete()).put("bytes", s.bytes()).put("packets", s.packets())
                        .put("node", l.node()).put("url", "/api/recordings/" + s.name() + "?node=" + l.node()));
            }
            unreachable.sort(null);
            return new JsonObject().put("camera", camera).put("from", from).put("to", to).put("segments", out)
                    .put("more", merged.size() > limit).put("unreachable", new JsonArray(unreachable));
        });
    }

    /** One member's answer to a list kept with the recording, its items checked, or why there is none (failure). */
    private record Part(String node, List<Object> items, boolean more, String failure) {}

    /** Checks one item of a member's list and gives it as it is passed on; an IllegalArgumentException when wrong. */
    private interface ItemCheck {
        Object checked(Object item);
    }

    /**
     * {@code {"camera", "from", "to", "frames": [...], "more", "unreachable"}}: what the detector saw in every member's
     * recorded frames of [from, to), oldest first, one frame per time, at most {@code limit}.
     */
    Future<JsonObject> detections(String camera, long from, long to, int limit) {
        RecordingQuery q = new RecordingQuery.Detections(camera, from, to, limit);
        ItemCheck check = o -> {
            if (!(o instanceof JsonObject f) || !(f.getValue("boxes") instanceof JsonArray boxes)) {
                throw new IllegalArgumentException("expected a frame {\"t\", \"width\", \"height\", \"boxes\": [...]}");
            }
            long t = whole(f, "t", from);
            if (t >= to) throw new IllegalArgumentException("a frame at " + t + ", after the range asked");
            return new JsonObject().put("t", t).put("width", whole(f, "width", 0)).put("height", whole(f, "height", 0)).put("boxes", boxes);
        };
        return gather(q, "frames", local.detections(camera, from, to, limit + 1).map(f -> NodeRecordings.frames(f, limit)), check)
                .map(parts -> {
                    long horizon = Long.MAX_VALUE;   // past the last frame of a member whose list was cut, others' are not all
                    for (Part p : parts) if (p.more()) horizon = Math.min(horizon, p.items().isEmpty() ? from - 1 : t(p.items().getLast()));
                    java.util.TreeMap<Long, JsonObject> byTime = new java.util.TreeMap<>();
                    for (Part p : parts) for (Object o : p.items()) if (t(o) <= horizon) byTime.putIfAbsent(t(o), (JsonObject) o);
                    JsonArray out = new JsonArray();
                    for (JsonObject f : byTime.values()) {
                        if (out.size() == limit) break;
                        out.add(f);
                    }
                    boolean more = horizon != Long.MAX_VALUE || byTime.size() > limit;
                    return listed(camera, from, to, "frames", out, more, parts);
                });
    }

    private static long t(Object frame) { return ((JsonObject) frame).getLong("t"); }

    /**
     * {@code {"camera", "from", "to", "events": [...], "more", "unreachable"}}: every member's events kept with its
     * recording overlapping [from, to), newest first, each id once, at most {@code limit}.
     */
    Future<JsonObject> storedEvents(String camera, long from, long to, int limit) {
        // a range's default start (an hour before its end) may lie before 1970; nothing is recorded there
        RecordingQuery q = new RecordingQuery.StoredEvents(camera, Math.max(0, from), to, limit);
        ItemCheck check = o -> {
            if (!(o instanceof JsonObject e) || !(e.getValue("id") instanceof String id) || !Names.valid(id, Names.DERIVED_MAX)
                    || !camera.equals(e.getValue("cameraId")) || !(e.getValue("start") instanceof Number start)
                    || !Double.isFinite(start.doubleValue()) || !(e.getValue("end") == null || e.getValue("end") instanceof Number)) {
                throw new IllegalArgumentException("expected events of camera " + camera + " {\"id\", \"cameraId\", \"start\", \"end\"}");
            }
            return e;
        };
        return gather(q, "events", local.storedEvents(camera, from, to, limit + 1).map(e -> NodeRecordings.events(e, limit)), check)
                .map(parts -> {
                    double horizon = -Double.MAX_VALUE;   // before the oldest event of a member whose list was cut, others' are not all
                    for (Part p : parts) if (p.more()) horizon = Math.max(horizon, p.items().isEmpty() ? Double.MAX_VALUE : start(p.items().getLast()));
                    List<JsonObject> all = new ArrayList<>();
                    for (Part p : parts) for (Object o : p.items()) if (start(o) >= horizon) all.add((JsonObject) o);
                    all.sort(Comparator.<JsonObject>comparingDouble(MemberRecordings::start).reversed()
                            .thenComparing((JsonObject e) -> e.getValue("end") == null ? 1 : 0)   // an ended copy before an open one
                            .thenComparing((JsonObject e) -> e.getString("id")));
                    JsonArray out = new JsonArray();
                    java.util.Set<String> seen = new java.util.HashSet<>();
                    int kept = 0;
                    for (JsonObject e : all) {
                        if (!seen.add(e.getString("id"))) continue;
                        if (kept++ < limit) out.add(e);
                    }
                    return listed(camera, from, to, "events", out, horizon != -Double.MAX_VALUE || kept > limit, parts);
                });
    }

    private static double start(Object event) { return ((Number) ((JsonObject) event).getValue("start")).doubleValue(); }

    /**
     * {@code {"camera", "from", "to", "spans": [[start, end or -1]], "more", "unreachable"}}: every member's recorded
     * time overlapping [from, to), joined where spans meet within {@link RecordingVerticle#SPAN_GAP_MS}, oldest first, at
     * most {@code limit}.
     */
    Future<JsonObject> spans(String camera, long from, long to, int limit) {
        RecordingQuery q = new RecordingQuery.Spans(camera, Math.max(0, from), to, limit);
        ItemCheck check = o -> {
            if (!(o instanceof JsonArray a) || a.size() != 2 || !(a.getValue(0) instanceof Number s) || !(a.getValue(1) instanceof Number e)
                    || s instanceof Double || e instanceof Double || s instanceof Float || e instanceof Float
                    || s.longValue() < 0 || s.longValue() > RecordingQuery.MAX_NUMBER
                    || (e.longValue() != -1 && (e.longValue() < s.longValue() || e.longValue() > RecordingQuery.MAX_NUMBER))) {
                throw new IllegalArgumentException("expected spans [start, end or -1], found " + Names.quoted(String.valueOf(o)));
            }
            return new long[]{s.longValue(), e.longValue()};
        };
        return gather(q, "spans", local.spans(camera, from, to, limit).map(s -> NodeRecordings.spans(s, limit)), check)
                .map(parts -> {
                    long horizon = Long.MAX_VALUE;   // past the last span of a member whose list was cut, others' are not all
                    List<long[]> all = new ArrayList<>();
                    for (Part p : parts) {
                        if (p.more()) {
                            long[] last = p.items().isEmpty() ? new long[]{from, from} : (long[]) p.items().getLast();
                            horizon = Math.min(horizon, last[1] < 0 ? last[0] : last[1]);
                        }
                        for (Object o : p.items()) all.add((long[]) o);
                    }
                    all.sort(Comparator.comparingLong((long[] s) -> s[0]));
                    List<long[]> joined = new ArrayList<>();
                    for (long[] s : all) {
                        long[] last = joined.isEmpty() ? null : joined.getLast();
                        if (last != null && (last[1] < 0 || s[0] - last[1] <= RecordingVerticle.SPAN_GAP_MS)) {
                            last[1] = last[1] < 0 || s[1] < 0 ? -1 : Math.max(last[1], s[1]);
                        } else if (s[0] <= horizon) {
                            joined.add(new long[]{s[0], s[1]});
                        }
                    }
                    JsonArray out = new JsonArray();
                    for (long[] s : joined.subList(0, Math.min(limit, joined.size()))) out.add(new JsonArray().add(s[0]).add(s[1]));
                    return listed(camera, from, to, "spans", out, horizon != Long.MAX_VALUE || joined.size() > limit, parts);
                });
    }

    /**
     * This node's storage status ({@code local}, its fields where they are) with every other member's under
     * {@code "members": {"<node id>": {...}}} and those that did not answer in time in {@code "unreachable"}: the
     * cameras recorded anywhere in the cluster.
     */
    Future<JsonObject> status(JsonObject local) {
        List<Future<Part>> asked = new ArrayList<>();
        for (String node : others()) {
            asked.add(ask(node, new RecordingQuery.Status(), LIST_TIMEOUT_MS).map(reply -> {
                JsonObject status = answerIn(reply.body());
                Object cameras = status.getValue("cameras");
                if (cameras != null && !(cameras instanceof JsonObject c && c.fieldNames().stream().allMatch(Names::valid))) {
                    throw new IllegalArgumentException("cameras: expected {\"<camera id>\": {...}}");
                }
                return new Part(node, List.of(status), false, null);
            }).otherwise(e -> unheard(node, "status", e)));
        }
        return Future.all(asked).map(all -> {
            JsonObject members = new JsonObject();
            List<String> unreachable = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                Part p = all.resultAt(i);
                if (p.failure() != null) unreachable.add(p.node());
                else members.put(p.node(), p.items().getFirst());
            }
            return local.copy().put("members", members).put("unreachable", new JsonArray(unreachable));
        });
    }

    /** This node's part (its failure fails the whole) and every other member's, each checked. */
    private Future<List<Part>> gather(RecordingQuery q, String key, Future<JsonObject> own, ItemCheck check) {
        List<Future<Part>> asked = new ArrayList<>();
        asked.add(own.map(a -> part(self, a, key, check)));
        for (String node : others()) {
            asked.add(ask(node, q, LIST_TIMEOUT_MS).map(reply -> part(node, answerIn(reply.body()), key, check))
                    .otherwise(e -> unheard(node, q.describe(), e)));
        }
        return Future.all(asked).map(all -> {
            List<Part> parts = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) parts.add(all.resultAt(i));
            return parts;
        });
    }

    private static Part unheard(String node, String what, Throwable e) {
        LOG.log(Level.DEBUG, "recordings: node {0} did not answer {1}: {2}", node, what, e.getMessage());
        return new Part(node, List.of(), false, String.valueOf(e.getMessage()));
    }

    /** A member's answer: encoded JSON of at most {@link RecordingQuery#ANSWER_BYTES}, refused unread when larger. */
    private static JsonObject answerIn(Object body) {
        if (!(body instanceof Buffer b)) throw new IllegalArgumentException("expected encoded JSON, found " + (body == null ? "nothing" : "another kind"));
        if (b.length() > RecordingQuery.ANSWER_BYTES) {
            throw new IllegalArgumentException("an answer of " + b.length() + " bytes, over " + RecordingQuery.ANSWER_BYTES);
        }
        try {
            return new JsonObject(b);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected a JSON object: " + bounded(e.getMessage()));
        }
    }

    /** {@code {"<key>": [...], "more"}}: at most as many items as were asked, each checked. */
    private static Part part(String node, JsonObject answer, String key, ItemCheck check) {
        if (!(answer.getValue(key) instanceof JsonArray items) || !(answer.getValue("more") instanceof Boolean more)) {
            throw new IllegalArgumentException("expected {\"" + key + "\": [...], \"more\": true|false}");
        }
        List<Object> out = new ArrayList<>(items.size());
        for (Object o : items) out.add(check.checked(o));
        return new Part(node, out, more, null);
    }

    /** The merged list with its cut and the members not heard from, sorted. */
    private static JsonObject listed(String camera, long from, long to, String key, JsonArray items, boolean more, List<Part> parts) {
        List<String> unreachable = new ArrayList<>();
        for (Part p : parts) if (p.failure() != null) unreachable.add(p.node());
        unreachable.sort(null);
        return new JsonObject().put("camera", camera).put("from", from).put("to", to).put(key, items).put("more", more)
                .put("unreachable", new JsonArray(unreachable));
    }

    /** The other members that can be asked (their ids are names: anything else names no address). */
    private List<String> others() {
        return members.get().stream().filter(n -> !n.equals(self) && Names.valid(n)).sorted().toList();
    }

    /** {@code node}'s segments, checked; a node that fails or answers nonsense gives a failure, never an exception. */
    private Future<FromNode> segmentsOf(String node, String camera, long from, long to, int limit) {
        // a list's default start (an hour before its end) may lie before 1970; nothing is recorded there
        return ask(node, new RecordingQuery.Segments(camera, Math.max(0, from), Math.max(0, to), limit), LIST_TIMEOUT_MS)
                .map(reply -> new FromNode(node, segmentsIn(reply.body(), camera, limit), null))
                .otherwise(e -> {
                    LOG.log(Level.DEBUG, "recordings: node {0} did not list camera {1}: {2}", node, camera, e.getMessage());
                    return new FromNode(node, List.of(), String.valueOf(e.getMessage()));
                });
    }

    /** The segments of a member's list reply; an {@link IllegalArgumentException} for anything but a list of them. */
    private static List<Segment> segmentsIn(Object body, String camera, int limit) {
        JsonArray list = body instanceof JsonObject j && j.getValue("segments") instanceof JsonArray a ? a : null;
        if (list == null || list.size() > limit) {
            throw new IllegalArgumentException("expected {\"segments\": [...]} of at most " + limit);
        }
        List<Segment> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (!(o instanceof JsonObject s) || !(s.getValue("name") instanceof String name) || !StorageLayout.isSegmentName(name)
                    || !camera.equals(StorageLayout.cameraOf(name))) {
                throw new IllegalArgumentException("expected segments of camera " + camera + ", found " + Names.quoted(String.valueOf(o)));
            }
            out.add(new Segment(camera, name, whole(s, "startMs", 0), whole(s, "endMs", -1), whole(s, "bytes", 0),
                    whole(s, "packets", 0)));
        }
        return out;
    }

    private static long whole(JsonObject j, String key, long min) {
        if (!(j.getValue(key) instanceof Number n) || n instanceof Double || n instanceof Float || n.longValue() < min
                || n.longValue() > RecordingQuery.MAX_NUMBER) {
            throw new IllegalArgumentException(key + ": expected a whole number of " + min + " or more, found "
                    + Names.quoted(String.valueOf(j.getValue(key))));
        }
        return n.longValue();
    }

    /** Whether {@code node} (a name, checked) is this node. */
    boolean isSelf(String node) { return self.equals(node); }

    /**
     * Answers {@code rc} with segment {@code name} (checked) of member {@code node} (a name, checked; not this node):
     * whole, or the byte range asked.
     */
    void sendSegment(RoutingContext rc, String node, String name) {
        if (!isMember(rc, node)) return;
        stream(rc, node, (offset, length) -> RecordingQuery.Read.segment(name, offset, length), "segment " + name);
    }

    /**
     * Answers {@code rc} with [from, to) of {@code camera} as one MP4: made by {@code node} when given (checked to be a
     * name), else by the member holding most of the range; {@code here} answers when that is this node.
     */
    void sendClip(RoutingContext rc, String camera, long from, long to, String node, Runnable here) {
        RecordingQuery.RangeClip q = new RecordingQuery.RangeClip(camera, from, to);
        if (node != null) {
            if (isSelf(node)) here.run();
            else if (isMember(rc, node)) clipOf(rc, node, q);
            return;
        }
        holder(camera, from, to).onComplete(ar -> {
            String h = ar.succeeded() ? ar.result() : null;
            if (h == null || isSelf(h)) here.run();
            else clipOf(rc, h, q);
        });
    }

    /**
     * Answers {@code rc} with the clip of an event of {@code camera} from {@code start} to {@code end} (-1: open),
     * made by the member holding most of the event's span (with its rolls as that node knows them); {@code here}
     * answers when that is this node.
     */
    void sendEventClip(RoutingContext rc, String camera, long start, long end, Runnable here) {
        RecordingQuery.EventClip q;
        try {
            q = new RecordingQuery.EventClip(camera, start, end);
        } catch (IllegalArgumentException e) {
            JsonReplies.error(rc, 400, "event: " + e.getMessage());
            return;
        }
        long until = end < 0 ? System.currentTimeMillis() : end;
        holder(camera, start, Math.max(until, start) + 1).onComplete(ar -> {
            String h = ar.succeeded() ? ar.result() : null;
            if (h == null || isSelf(h)) here.run();
            else clipOf(rc, h, q);
        });
    }

    /**
     * The member whose segments cover most of [from, to) of {@code camera} (each overlapping segment counts a
     * millisecond more, so a span too short to overlap still finds its segment), this node first among equals; null
     * when none has any. Members that do not answer in time are left out.
     */
    private Future<String> holder(String camera, long from, long to) {
        List<Future<FromNode>> asked = new ArrayList<>();
        asked.add(local.segments(camera, from, to, HOLDER_SEGMENTS).map(s -> new FromNode(self, s, null))
                .otherwise(e -> new FromNode(self, List.of(), String.valueOf(e.getMessage()))));
        for (String node : others()) asked.add(segmentsOf(node, camera, from, to, HOLDER_SEGMENTS));
        return Future.all(asked).map(all -> {
            String best = null;
            long bestScore = 0;
            for (int i = 0; i < all.size(); i++) {
                FromNode n = all.resultAt(i);
                long score = 0;
                for (Segment s : n.segments()) {
                    long end = s.complete() ? s.endMs() : Math.max(to, s.startMs());
                    score += 1 + Math.max(0, Math.min(end, to) - Math.max(s.startMs(), from));
                }
                if (score > bestScore) {
                    best = n.node();
                    bestScore = score;
                }
            }
            return best;
        });
    }

    /** Asks {@code node} to make the clip {@code q}, then streams it from there. */
    private void clipOf(RoutingContext rc, String node, RecordingQuery q) {
        ask(node, q, CLIP_TIMEOUT_MS).onComplete(ar -> {
            if (rc.response().ended()) return;
            if (ar.failed()) {
                failed(rc, node, q.describe(), ar.cause());
                return;
            }
            Object body = ar.result().body();
            JsonObject made = body instanceof JsonObject j ? j : new JsonObject();
            String token = made.getValue("clip") instanceof String t ? t : null;
            long clipFrom;
            long clipTo;
            try {
                RecordingQuery.Read.clip(token, 0, 0);   // checks the token
                clipFrom = whole(made, "from", 0);
                clipTo = whole(made, "to", 0);
            } catch (IllegalArgumentException e) {
                JsonReplies.error(rc, 502, "node " + node + " answered no clip for " + q.describe() + ": " + bounded(e.getMessage()));
                return;
            }
            rc.response().putHeader("x-clip-from", Long.toString(clipFrom)).putHeader("x-clip-to", Long.toString(clipTo));
            stream(rc, node, (offset, length) -> RecordingQuery.Read.clip(token, offset, length), "clip " + token);
        });
    }

    /** Whether {@code node} is a member now; else answers 404. */
    private boolean isMember(RoutingContext rc, String node) {
        if (members.get().contains(node)) return true;
        JsonReplies.error(rc, 404, "node " + Names.quoted(node) + " is not a member of the cluster (now)");
        return false;
    }

    /**
     * Streams a file of {@code node}: its size first (a read of nothing), then the asked range (or all of it) one
     * chunk at a time, the next asked only once the client has taken the last (the response's write queue).
     */
    private void stream(RoutingContext rc, String node, BiFunction<Long, Integer, RecordingQuery.Read> read, String what) {
        ask(node, read.apply(0L, 0), CHUNK_TIMEOUT_MS).onComplete(ar -> {
            if (rc.response().ended()) return;
            if (ar.failed()) {
                failed(rc, node, what, ar.cause());
                return;
            }
            long size = sizeOf(ar.result());
            if (size < 0) {
                JsonReplies.error(rc, 502, "node " + node + " gave no size for " + what);
                return;
            }
            HttpServerResponse response = rc.response().putHeader("content-type", "video/mp4").putHeader("accept-ranges", "bytes")
                    .putHeader("x-argus-recording-from", node);
            String header = rc.request().getHeader("range");
            long first = 0;
            long last = size - 1;
            if (header != null) {
                long[] range = ByteRanges.asked(rc, header, size, what);
                if (range == null) return;
                first = range[0];
                last = range[1];
                response.setStatusCode(206).putHeader("content-range", "bytes " + first + "-" + last + "/" + size);
            }
            response.putHeader("content-length", Long.toString(last - first + 1));
            pump(response, node, read, what, first, last);
        });
    }

    /** Bytes [offset, last] of the file to the client, a chunk at a time. */
    private void pump(HttpServerResponse response, String node, BiFunction<Long, Integer, RecordingQuery.Read> read, String what,
                      long offset, long last) {
        if (response.closed()) return;   // the client went away: nothing more is asked
        if (offset > last) {
            response.end();
            return;
        }
        int length = (int) Math.min(RecordingQuery.CHUNK_BYTES, last - offset + 1);
        ask(node, read.apply(offset, length), CHUNK_TIMEOUT_MS).onComplete(ar -> {
            if (response.closed()) return;
            String wrong = null;
            if (ar.failed()) wrong = ar.cause().getMessage();
            else if (!(ar.result().body() instanceof Buffer chunk) || chunk.length() != length) {
                wrong = "expected " + length + " bytes, got " + (ar.result().body() instanceof Buffer b ? b.length() + " bytes" : "none");
            } else if (sizeOf(ar.result()) <= last) {
                wrong = "the file is now " + sizeOf(ar.result()) + " bytes, shorter than the " + (last + 1) + " being sent";
            }
            if (wrong != null) {
                // the status is sent: all that is left is to cut the response short, so the client sees it incomplete
                LOG.log(Level.WARNING, "recordings: {0} of node {1} cut at byte {2}: {3}", what, node, offset, bounded(wrong));
                response.reset();
                return;
            }
            response.write((Buffer) ar.result().body());
            if (response.writeQueueFull()) {
                response.drainHandler(v -> pump(response, node, read, what, offset + length, last));
            } else {
                pump(response, node, read, what, offset + length, last);
            }
        });
    }

    /** The whole file's size a chunk's reply gives, or -1. */
    private static long sizeOf(Message<Object> reply) {
        String size = reply.headers().get(NodeRecordings.SIZE);
        if (size == null || !size.matches("[0-9]{1,15}")) return -1;
        long n = Long.parseLong(size);
        return n <= MAX_FILE_BYTES ? n : -1;
    }

    private Future<Message<Object>> ask(String node, RecordingQuery q, long timeoutMs) {
        return vertx.eventBus().request(Addresses.nodeRecordings(node), q.toJson(), new DeliveryOptions().setSendTimeout(timeoutMs));
    }

    /** A member's refusal as it gave it (400, 404, 416, 503), anything else as 502 naming the node. */
    private static void failed(RoutingContext rc, String node, String what, Throwable e) {
        rc.response().putHeader("x-argus-recording-from", node);
        if (e instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
                && List.of(400, 404, 416, 503).contains(re.failureCode())) {
            JsonReplies.error(rc, re.failureCode(), bounded(re.getMessage()));
        } else {
            JsonReplies.error(rc, 502, "node " + node + " did not answer for " + what + ": " + bounded(String.valueOf(e.getMessage())));
        }
    }

    private static String bounded(String reason) {
        String r = String.valueOf(reason);
        return r.length() <= REASON_MAX ? r : r.substring(0, REASON_MAX) + "... (" + r.length() + " characters)";
    }
}
