package io.argus.pipeline.http;

import io.argus.pipeline.config.Names;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Request bodies of the API are JSON, declared {@code application/json} (a {@code charset} parameter may follow); any
 * other declared type, or none, is answered 415 naming the expected one, before the body is read. A page of another
 * site can send a form or {@code text/plain} without the browser asking first (a CORS preflight), but not
 * {@code application/json}: so a JSON body that says what it is was sent by a client that may. The one exception is
 * the upload of model weights, {@code POST /api/models/{id}/versions}, which also takes {@code application/octet-stream}.
 * Requests without a body (most POSTs and DELETEs) pass whatever they declare.
 */
final class JsonContentType {
    static final String JSON = "application/json";
    static final String OCTETS = "application/octet-stream";
    /** The weights upload: a stream of bytes, not JSON. */
    private static final Pattern UPLOAD = Pattern.compile("/api/models/[^/]+/versions");

    private JsonContentType() {}

    /** Route handler for {@code /api/*}. */
    static void check(RoutingContext rc) {
        HttpServerRequest req = rc.request();
        if (!hasBody(req)) {
            rc.next();
            return;
        }
        String declared = req.getHeader(HttpHeaders.CONTENT_TYPE);
        String media = declared == null ? "" : declared.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        boolean upload = req.method() == HttpMethod.POST && UPLOAD.matcher(rc.normalizedPath()).matches();
        if (media.equals(JSON) || upload && media.equals(OCTETS)) {
            rc.next();
            return;
        }
        String expected = upload ? JSON + " or " + OCTETS : JSON;
        rc.response().setStatusCode(415).putHeader("content-type", JSON)
                .end(new JsonObject().put("error", "Content-Type: expected " + expected + " with a body, found "
                        + (declared == null ? "none" : Names.quoted(declared))).encode());
    }

    /** Whether a body follows the head: a positive Content-Length, or a chunked (or other) transfer coding. */
    private static boolean hasBody(HttpServerRequest req) {
        if (req.getHeader(HttpHeaders.TRANSFER_ENCODING) != null) return true;
        String length = req.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length == null) return false;
        try {
            return Long.parseLong(length.strip()) > 0;
        } catch (NumberFormatException e) {
            return true; // not a length: the decoder refuses it, and a body it would be
        }
    }
}
