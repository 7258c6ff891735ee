package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.answer;
import static io.argus.pipeline.http.JsonReplies.error;

import io.argus.pipeline.recording.Recordings;
import io.argus.recording.Segment;
import io.argus.recording.StorageLayout;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * REST for recordings (docs/recording.md): the storage's state ({@code GET /api/recordings}), a camera's segments in a
 * time range ({@code GET /api/recordings/:camera?from=&to=}, epoch ms, the last hour by default) and a segment's file
 * ({@code GET /api/recordings/:camera/:day/:file}, with byte ranges, as a browser's video element asks). A segment is
 * named, never a path: the name is parsed and resolved under the storage directory ({@link StorageLayout#file}).
 */
final class RecordingRoutes {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{0,18})-(\\d{0,18})");
    private static final long HOUR_MS = 3_600_000L;

    private RecordingRoutes() {}

    static void mount(Router router, Recordings recordings) {
        router.get("/api/recordings").handler(rc -> answer(rc, recordings.status(), WAIT_SECONDS, s -> s, 200));
        router.get("/api/recordings/:camera").handler(rc -> {
            String camera = PathIds.name(rc, "camera", "camera id");
            if (camera == null) return;
            long to;
            long from;
            try {
                to = time(rc, "to", System.currentTimeMillis());
                from = time(rc, "from", to - HOUR_MS);
            } catch (IllegalArgumentException e) {
                error(rc, 400, e.getMessage());
                return;
            }
            if (from > to) {
                error(rc, 400, "from (" + from + ") is after to (" + to + ")");
                return;
            }
            answer(rc, recordings.segments(camera, from, to), WAIT_SECONDS, RecordingRoutes::listed, 200);
        });
        router.get("/api/recordings/:camera/:day/:file").handler(rc -> {
            String name = rc.pathParam("camera") + "/" + rc.pathParam("day") + "/" + rc.pathParam("file");
            if (!StorageLayout.isSegmentName(name)) {
                error(rc, 400, "segment: expected /api/recordings/<camera>/<yyyy-MM-dd>/<start ms>.mp4");
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

    private static long time(RoutingContext rc, String param, long def) {
        String v = rc.queryParams().get(param);
        if (v == null || v.isEmpty()) return def;
        if (!v.matches("\\d{1,15}")) throw new IllegalArgumentException(param + ": expected epoch milliseconds, found " + io.argus.pipeline.config.Names.quoted(v));
        return Long.parseLong(v);
    }

    private static JsonArray listed(List<Segment> segments) {
        JsonArray out = new JsonArray();
        for (Segment s : segments) {
            out.add(new JsonObject().put("name", s.name()).put("startMs", s.startMs()).put("endMs", s.endMs())
                    .put("complete", s.complete()).put("bytes", s.bytes()).put("packets", s.packets())
                    .put("url", "/api/recordings/" + s.name()));
        }
        return out;
    }

    /** The file whole (200) or the one byte range asked for (206); a range beyond its end: 416. */
    private static void send(RoutingContext rc, java.nio.file.Path file) {
        rc.vertx().fileSystem().props(file.toString()).onComplete(p -> {
            if (p.failed()) {
                error(rc, 404, "no segment " + file.getFileName());
                return;
            }
            long size = p.result().size();
            var response = rc.response().putHeader("content-type", "video/mp4").putHeader("accept-ranges", "bytes");
            String range = rc.request().getHeader("range");
            if (range == null) {
                response.sendFile(file.toString());
                return;
            }
            Matcher m = RANGE.matcher(range.trim());
            if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
                error(rc, 416, "range: expected bytes=<first>-<last>, found " + io.argus.pipeline.config.Names.quoted(range));
                return;
            }
            long first;
            long last;
            if (m.group(1).isEmpty()) {   // the last n bytes
                long n = Long.parseLong(m.group(2));
                first = Math.max(0, size - n);
                last = size - 1;
            } else {
                first = Long.parseLong(m.group(1));
                last = m.group(2).isEmpty() ? size - 1 : Math.min(Long.parseLong(m.group(2)), size - 1);
            }
            if (first >= size || first > last) {
                response.putHeader("content-range", "bytes */" + size);
                error(rc, 416, "range " + first + "-" + last + " outside the " + size + " bytes of " + file.getFileName());
                return;
            }
            response.setStatusCode(206).putHeader("content-range", "bytes " + first + "-" + last + "/" + size)
                    .sendFile(file.toString(), first, last - first + 1);
        });
    }
}
