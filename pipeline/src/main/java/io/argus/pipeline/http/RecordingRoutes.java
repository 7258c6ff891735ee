package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.answer;
import static io.argus.pipeline.http.JsonReplies.error;

import io.argus.pipeline.cluster.RecordingQuery;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.events.EventQueries;
import io.argus.pipeline.recording.Recordings;
import io.argus.recording.Segment;
import io.argus.recording.StorageLayout;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * REST for recordings (docs/recording.md): the storage's state ({@code GET /api/recordings}), a camera's segments in a
 * time range ({@code GET /api/recordings/:camera?from=&to=&limit=}, epoch ms, the last hour by default), a segment's
 * file ({@code GET /api/recordings/:camera/:day/:file}, with byte ranges, as a browser's video element asks), a time
 * range as one MP4 ({@code GET /api/recordings/:camera/clip.mp4?from=&to=}) and an event's clip
 * ({@code GET /api/events/:id/clip.mp4}: its camera's pre-roll before it, post-roll after it), and the boxes the
 * detector saw in a range's frames ({@code GET /api/recordings/:camera/detections?from=&to=}, at most 10 min), and the
 * camera's events kept with its recordings ({@code GET /api/recordings/:camera/events?from=&to=&limit=}, newest first,
 * beyond what the event history holds in memory). A segment is named,
 * never a path: the name is parsed and resolved under the storage directory ({@link StorageLayout#file}).
 *
 * <p>In a cluster the list, the segments, the clips, the detections, the stored events and the spans come from every
 * member ({@link MemberRecordings}): a segment's URL names its node ({@code ?node=<id>}), a clip is made by the node
 * that holds most of its range, the lists are merged (each naming the members not heard from in {@code "unreachable"}),
 * and the storage status adds every other member's under {@code "members"}.
 */
final class RecordingRoutes {
    private static final long HOUR_MS = 3_600_000L;
    /** Segments one list request returns at most (10 s segments: a day is 8,640); the rest by asking from the last. */
    static final int LIST_LIMIT = 10_000;
    /** The longest range of frames' boxes one request reads (10 min: 15,000 frames at 25 fps). */
    static final long DETECTIONS_RANGE_MS = RecordingQuery.DETECTIONS_MS;
    static final int DETECTIONS_LIMIT = RecordingQuery.MAX_FRAMES;
    /** Stored events one request returns at most, newest first; older ones by asking with an earlier {@code to}. */
    static final int STORED_EVENTS_LIMIT = RecordingQuery.MAX_EVENTS;

    private RecordingRoutes() {}

    /** {@code members}: the cluster's recordings; null on a single node. */
    static void mount(Router router, Recordings recordings, EventQueries events, MemberRecordings members) {
        router.get("/api/recordings").handler(rc -> answer(rc, members == null ? recordings.status()
                : recordings.status().compose(members::status), WAIT_SECONDS, s -> s, 200));
        router.get("/api/recordings/:camera/clip.mp4").handler(rc -> {
            String camera = PathIds.name(rc, "camera", "camera id");
            long[] range = camera == null ? null : requiredRange(rc, Recordings.MAX_CLIP_MS);
            if (range == null) return;
            Runnable here = () -> sendClip(rc, recordings.clip(camera, range[0], range[1]));
            if (members == null) here.run();
            else if (nodeChecked(rc)) members.sendClip(rc, camera, range[0], range[1], rc.queryParams().get("node"), here);
        });
        router.get("/api/recordings/:camera/detections").handler(rc -> {
            String camera = PathIds.name(rc, "camera", "camera id");
            long[] range = camera == null ? null : requiredRange(rc, DETECTIONS_RANGE_MS);
            if (range == null) return;
            long from = range[0];
            long to = range[1];
            if (members != null) {
                answer(rc, members.detections(camera, from, to, DETECTIONS_LIMIT), WAIT_SECONDS, list -> list, 200);
                return;
            }
            answer(rc, recordings.detections(camera, from, to, DETECTIONS_LIMIT), WAIT_SECONDS, frames -> {
                JsonArray out = new JsonArray();
                for (var f : frames) {
                    out.add(new JsonObject().put("t", f.timeMs()).put("width", f.width()).put("height", f.height())
                            .put("boxes", new JsonArray(f.boxes())));
                }
                return new JsonObject().put("camera", camera).put("from", from).put("to", to).put("frames", out);
            }, 200);
        });
        router.get("/api/recordings/:camera/spans").handler(rc -> {
            ListQuery q = listQuery(rc, LIST_LIMIT);
            if (q == null) return;
            if (members != null) {
                answer(rc, members.spans(q.camera(), q.from(), q.to(), q.limit()), WAIT_SECONDS, list -> list, 200);
                return;
            }
            answer(rc, recordings.spans(q.camera(), q.from(), q.to(), q.limit()), WAIT_SECONDS, spans -> {
                JsonArray out = new JsonArray();
                for (var s : spans.subList(0, Math.min(q.limit(), spans.size()))) out.add(new JsonArray().add(s.startMs()).add(s.endMs()));
                return q.answer("spans", out, spans.size() > q.limit());
            }, 200);
        });
        router.get("/api/recordings/:camera/events").handler(rc -> {
            ListQuery q = listQuery(rc, STORED_EVENTS_LIMIT);
            if (q == null) return;
            if (members != null) {
                answer(rc, members.storedEvents(q.camera(), q.from(), q.to(), q.limit()), WAIT_SECONDS, list -> list, 200);
                return;
            }
            // one more than asked: whether there are more to ask for
            answer(rc, recordings.storedEvents(q.camera(), q.from(), q.to(), q.limit() + 1), WAIT_SECONDS, stored -> {
                JsonArray out = new JsonArray();
                for (var e : stored.subList(0, Math.min(q.limit(), stored.size()))) out.add(new JsonObject(e.json()));
                return q.answer("events", out, stored.size() > q.limit());
            }, 200);
        });
        router.post("/api/exports").handler(rc -> {
            JsonObject body;
            List<String> cameras = new java.util.ArrayList<>();
            long from;
            long to;
            try {
                body = rc.body().asJsonObject();
                if (body == null) throw new IllegalArgumentException("empty body");
                for (Object c : body.getJsonArray("cameras", new JsonArray())) {
                    if (!(c instanceof String s) || !Names.valid(s)) throw new IllegalArgumentException("cameras: expected camera ids, found " + c);
                    cameras.add(s);
                }
                from = body.getLong("from", -1L);
                to = body.getLong("to", -1L);
            } catch (RuntimeException e) {
                error(rc, 400, "body: expected {\"cameras\": [\"cam1\", ...], \"from\": <epoch ms>, \"to\": <epoch ms>, "
                        + "\"boxes\": false} (" + e.getMessage() + ")");
                return;
            }
            // strictly a boolean: "true", 1 or null may mean either to whoever wrote them
            Object askedBoxes = body.containsKey("boxes") ? body.getValue("boxes") : Boolean.FALSE;
            if (!(askedBoxes instanceof Boolean b)) {
                error(rc, 400, "boxes: expected true or false, found " + io.vertx.core.json.Json.encode(askedBoxes));
                return;
            }
            recordings.export(cameras, from, to, b).onComplete(ar -> {
                if (ar.succeeded()) rc.response().setStatusCode(202).putHeader("content-type", "application/json").end(ar.result().encode());
                else failed(rc, ar.cause());
            });
        });
        router.get("/api/exports").handler(rc -> answer(rc, recordings.exports(), WAIT_SECONDS, list -> list, 200));
        router.get("/api/exports/:id").handler(rc -> {
            String id = PathIds.name(rc, "id", "export id");
            if (id != null) recordings.export(id).onComplete(ar -> {
                if (ar.succeeded()) rc.response().putHeader("content-type", "application/json").end(ar.result().encode());
                else failed(rc, ar.cause());
            });
        });
        router.delete("/api/exports/:id").handler(rc -> {
            String id = PathIds.name(rc, "id", "export id");
            if (id != null) recordings.cancelExport(id).onComplete(ar -> {
                if (ar.succeeded()) rc.response().putHeader("content-type", "application/json").end(ar.result().encode());
                else failed(rc, ar.cause());
            });
        });
        router.get("/api/exports/:id/:file").handler(rc -> {
            String id = PathIds.name(rc, "id", "export id");
            String file = id == null ? null : PathIds.name(rc, "file", "export file");
            if (file == null) return;
            if (!file.endsWith(".mp4")) {
                error(rc, 400, "export file: expected <camera>.mp4, found " + Names.quoted(file));
                return;
            }
            recordings.exportFile(id, file.substring(0, file.length() - 4)).onComplete(ar -> {
                if (ar.succeeded()) send(rc, ar.result());
                else failed(rc, ar.cause());
            });
        });
        router.get("/api/events/:id/clip.mp4").handler(rc -> {
            String id = PathIds.name(rc, "id", "event id", Names.DERIVED_MAX);
            if (id == null) return;
            // the event history first (any node's recent events), then the event log (as old as the recording)
            events.event(id).timeout(WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS).recover(notRecent -> {
                if (io.argus.pipeline.base.RequestRefused.statusOf(notRecent) != 404) return io.vertx.core.Future.failedFuture(notRecent);
                return recordings.storedEvent(id).map(kept -> new JsonObject(kept.json()))
                        .recover(notKept -> io.vertx.core.Future.failedFuture(notRecent));
            }).onComplete(ar -> {
                if (ar.failed()) {
                    error(rc, io.argus.pipeline.base.RequestRefused.statusOf(ar.cause()) == 404 ? 404 : 503, ar.cause().getMessage());
                    return;
                }
                JsonObject e = ar.result();
                Number end = (Number) e.getValue("end");
                String camera = e.getString("cameraId");
                long start = Math.round(e.getDouble("start"));
                long until = end == null ? -1 : Math.round(end.doubleValue());
                Runnable here = () -> sendClip(rc, recordings.eventClip(camera, start, until));
                if (members == null) here.run();
                else members.sendEventClip(rc, camera, start, until, here);
            });
        });
        router.get("/api/recordings/:camera").handler(rc -> {
            ListQuery q = listQuery(rc, LIST_LIMIT);
            if (q == null) return;
            // one more than asked: whether there are more to ask for
            if (members != null) answer(rc, members.list(q.camera(), q.from(), q.to(), q.limit()), WAIT_SECONDS, list -> list, 200);
            else answer(rc, recordings.segments(q.camera(), q.from(), q.to(), q.limit() + 1), WAIT_SECONDS,
                    segments -> listed(q.camera(), q.from(), q.to(), q.limit(), segments), 200);
        });
        router.get("/api/recordings/:camera/:day/:file").handler(rc -> {
            String name = rc.pathParam("camera") + "/" + rc.pathParam("day") + "/" + rc.pathParam("file");
            if (!StorageLayout.isSegmentName(name)) {
                error(rc, 400, "segment: expected /api/recordings/<camera>/<yyyy-MM-dd>/<start ms>.mp4");
                return;
            }
            if (members != null && !nodeChecked(rc)) return;
            String node = members == null ? null : rc.queryParams().get("node");
            if (node != null && !members.isSelf(node)) {
                members.sendSegment(rc, node, name);
                return;
            }
            recordings.file(name).onComplete(ar -> {
                if (ar.failed()) {
                    error(rc, ar.cause() instanceof java.util.NoSuchElementException ? 404 : 400, ar.cause().getMessage());
                    return;
                }
                send(rc, ar.result());
            });
        });
    }

    /** Whether {@code ?node=} (the cluster member holding a segment or clip) is absent or a name; else answers 400. */
    private static boolean nodeChecked(RoutingContext rc) {
        String node = rc.queryParams().get("node");
        if (node == null || Names.valid(node)) return true;
        error(rc, 400, "node: " + Names.expectation(Names.MAX) + ", found " + Names.quoted(node));
        return false;
    }

    /** {@code ?from=&to=}, both given, from before to, at most {@code maxMs} apart; else null after answering 400. */
    private static long[] requiredRange(RoutingContext rc, long maxMs) {
        try {
            long from = time(rc, "from", -1);
            long to = time(rc, "to", -1);
            if (from < 0 || to < 0) throw new IllegalArgumentException("from and to: expected epoch milliseconds, both");
            if (to <= from || to - from > maxMs) {
                throw new IllegalArgumentException("from, to: expected from < to, at most " + maxMs + " ms apart, found "
                        + from + ", " + to);
            }
            return new long[]{from, to};
        } catch (IllegalArgumentException e) {
            error(rc, 400, e.getMessage());
            return null;
        }
    }

    /** A camera's list in a time range: {@code ?from=&to=} (the last hour by default) and {@code ?limit=}. */
    private record ListQuery(String camera, long from, long to, int limit) {
        /** {@code {"camera", "from", "to", <name>: items, "more"}}. */
        JsonObject answer(String name, JsonArray items, boolean more) {
            return new JsonObject().put("camera", camera).put("from", from).put("to", to).put(name, items).put("more", more);
        }
    }

    /** The camera, range and limit of a list request, checked; null after answering 400. */
    private static ListQuery listQuery(RoutingContext rc, int maxLimit) {
        String camera = PathIds.name(rc, "camera", "camera id");
        if (camera == null) return null;
        try {
            long to = time(rc, "to", System.currentTimeMillis());
            long from = time(rc, "from", to - HOUR_MS);
            if (from > to) throw new IllegalArgumentException("from (" + from + ") is after to (" + to + ")");
            return new ListQuery(camera, from, to, limit(rc, maxLimit));
        } catch (IllegalArgumentException e) {
            error(rc, 400, e.getMessage());
            return null;
        }
    }

    /** {@code ?limit=}: 1 to {@code max}, {@code max} when not given; else an IllegalArgumentException naming it. */
    private static int limit(RoutingContext rc, int max) {
        String l = rc.queryParams().get("limit");
        if (l == null || l.isEmpty()) return max;
        if (l.matches("\\d{1,9}") && Integer.parseInt(l) >= 1 && Integer.parseInt(l) <= max) return Integer.parseInt(l);
        throw new IllegalArgumentException("limit: expected 1 to " + max + ", found " + Names.quoted(l));
    }

    private static long time(RoutingContext rc, String param, long def) {
        String v = rc.queryParams().get(param);
        if (v == null || v.isEmpty()) return def;
        if (!v.matches("\\d{1,15}")) throw new IllegalArgumentException(param + ": expected epoch milliseconds, found " + io.argus.pipeline.config.Names.quoted(v));
        return Long.parseLong(v);
    }

    /** {@code {"camera", "from", "to", "segments": [...], "more"}}: more when the limit cut the list. */
    private static JsonObject listed(String camera, long from, long to, int limit, List<Segment> segments) {
        JsonArray out = new JsonArray();
        for (Segment s : segments.subList(0, Math.min(limit, segments.size()))) {
            out.add(new JsonObject().put("name", s.name()).put("startMs", s.startMs()).put("endMs", s.endMs())
                    .put("complete", s.complete()).put("bytes", s.bytes()).put("packets", s.packets())
                    .put("url", "/api/recordings/" + s.name()));
        }
        return new JsonObject().put("camera", camera).put("from", from).put("to", to).put("segments", out)
                .put("more", segments.size() > limit);
    }

    /** Why a recording request failed: 404 nothing of it, 400 a bad request, 503 busy, 500 anything else. */
    private static void failed(RoutingContext rc, Throwable e) {
        int status = e instanceof java.util.NoSuchElementException ? 404 : e instanceof IllegalArgumentException ? 400
                : e instanceof IllegalStateException ? 503 : 500;
        error(rc, status, e.getMessage());
    }

    /** The clip's file with byte ranges, or why there is none: 404 nothing recorded, 400 a bad range, 503 busy. */
    private static void sendClip(RoutingContext rc, io.vertx.core.Future<Recordings.Clip> clip) {
        clip.onComplete(ar -> {
            if (ar.succeeded()) {
                rc.response().putHeader("x-clip-from", Long.toString(ar.result().fromMs()))
                        .putHeader("x-clip-to", Long.toString(ar.result().toMs()));
                send(rc, ar.result().file());
                return;
            }
            failed(rc, ar.cause());
        });
    }

    /** The file whole (200) or the one byte range asked for (206); a range beyond its end: 416. */
    private static void send(RoutingContext rc, java.nio.file.Path file) {
        rc.vertx().fileSystem().props(file.toString()).onComplete(p -> {
            if (p.failed()) {
                error(rc, 404, "no file " + file.getFileName());
                return;
            }
            long size = p.result().size();
            var response = rc.response().putHeader("content-type", "video/mp4").putHeader("accept-ranges", "bytes");
            String range = rc.request().getHeader("range");
            if (range == null) {
                response.sendFile(file.toString());
                return;
            }
            long[] asked = ByteRanges.asked(rc, range, size, String.valueOf(file.getFileName()));
            if (asked == null) return;
            long first = asked[0];
            long last = asked[1];
            response.setStatusCode(206).putHeader("content-range", "bytes " + first + "-" + last + "/" + size)
                    .sendFile(file.toString(), first, last - first + 1);
        });
    }
}
