package io.argus.pipeline.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * The optional bearer token ({@code http.token}). When set, mutating REST calls, the WebSocket and SockJS
 * registrations need {@code Authorization: Bearer <token>} (browsers, which cannot set headers on WebSockets, may
 * pass {@code ?access_token=<token>}). Reads stay open.
 */
public final class BearerAuth {
    private static final Set<HttpMethod> MUTATING = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH);
    private final byte[] token;

    public BearerAuth(String token) {
        this.token = token != null ? token.getBytes(StandardCharsets.UTF_8) : null;
    }

    public boolean enabled() { return token != null; }

    /** Route handler: rejects unauthorised mutating requests with 401. */
    public void mutating(RoutingContext rc) {
        if (!MUTATING.contains(rc.request().method()) || allows(rc.request())) rc.next();
        else reject(rc);
    }

    /** Route handler: rejects any unauthorised request with 401. */
    public void always(RoutingContext rc) {
        if (allows(rc.request())) rc.next();
        else reject(rc);
    }

    private void reject(RoutingContext rc) {
        rc.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer")
                .putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", "missing or wrong bearer token (Authorization: Bearer <http.token>)").encode());
    }

    public boolean allows(HttpServerRequest req) {
        return !enabled() || header(req.getHeader("Authorization")) || matches(req.getParam("access_token"));
    }

    /** An "Authorization" header value. */
    public boolean header(String value) {
        if (!enabled()) return true;
        if (value == null || !value.regionMatches(true, 0, "Bearer ", 0, 7)) return false;
        return matches(value.substring(7).strip());
    }

    /** A raw URI's access_token query parameter (SockJS sockets). */
    public boolean query(String uri) {
        if (!enabled()) return true;
        if (uri == null) return false;
        int q = uri.indexOf('?');
        if (q < 0) return false;
        for (String part : uri.substring(q + 1).split("&")) {
            if (part.startsWith("access_token=")) {
                return matches(URLDecoder.decode(part.substring(13), StandardCharsets.UTF_8));
            }
        }
        return false;
    }

    private boolean matches(String candidate) {
        if (candidate == null) return false;
        return MessageDigest.isEqual(token, candidate.getBytes(StandardCharsets.UTF_8));
    }
}
