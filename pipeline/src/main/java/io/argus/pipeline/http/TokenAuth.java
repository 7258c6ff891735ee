package io.argus.pipeline.http;

import io.vertx.core.MultiMap;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.sockjs.BridgeEvent;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Checks the access token ({@link AccessToken}) on protected routes. A client may present it three ways:
 * {@code Authorization: Bearer <token>} (scripts), the {@value #COOKIE} cookie (the dashboard: set by opening
 * {@code /?token=<token>} once; HttpOnly, so page scripts never see it, SameSite=Strict, so pages of other sites do not
 * send it, though another port of the same host counts as the same site: {@link OriginCheck} refuses those), or
 * {@code ?access_token=<token>} (WebSocket clients that cannot set headers).
 *
 * <p>Tokens are compared in constant time: the SHA-256 digests of both, which have equal lengths whatever was sent,
 * with {@link MessageDigest#isEqual}. Wrong tokens are counted per client address and from all addresses together
 * ({@link FailedAttempts}); a stale cookie is cleared with the 401, so a dashboard left open after a rotation does not
 * lock its user out. The token may change while running ({@code argus token rotate}), hence the volatile digest.
 */
final class TokenAuth {
    static final String COOKIE = "argus_token";
    /** Routing-context key: the digest of the token a request was let in with. */
    private static final String AUTHORISED_BY = "argus.authorisedBy";
    /** Browsers cap cookie lifetimes at 400 days; the token itself lives until rotated. */
    private static final long COOKIE_MAX_AGE_SECONDS = 400L * 24 * 3600;
    private static final String HOW_TO =
            "open the dashboard URL printed at start, or run `argus token show` (scripts: Authorization: Bearer <token>)";

    private final FailedAttempts failures;
    private volatile byte[] digest; // null: open

    TokenAuth(String token, FailedAttempts failures) {
        this.failures = failures;
        token(token);
    }

    /** Replaces the token (null: open). */
    void token(String token) { this.digest = token != null ? sha256(token) : null; }

    boolean enabled() { return digest != null; }

    /** What a request carried. */
    enum Verdict { ALLOWED, MISSING, WRONG }

    /** Route handler: authorised requests go on; 401 without or with a wrong token; 429 while the address is locked out. */
    void required(RoutingContext rc) {
        if (!enabled()) {
            rc.next();
            return;
        }
        HttpServerRequest req = rc.request();
        String address = addressOf(req.remoteAddress());
        long wait = failures.retryAfterSeconds(address);
        if (wait > 0) {
            tooMany(rc, wait);
            return;
        }
        String cookie = cookie(req.headers());
        byte[] inForce = digest;
        switch (verdict(req.headers(), req.uri())) {
            case ALLOWED -> {
                rc.put(AUTHORISED_BY, inForce); // for the SockJS bridge: its sockets do not keep the cookie
                rc.next();
            }
            case MISSING -> unauthorized(rc, false);
            case WRONG -> {
                failures.failed(address);
                unauthorized(rc, cookie != null);
            }
        }
    }

    /**
     * {@code GET /?token=<token>}: the link {@code argus run} and {@code argus token show} print. A right token becomes
     * the cookie and the browser is sent on to {@code /}, so the token leaves the address bar (and its history and
     * bookmarks); a wrong one is a 401 and counts as a failed attempt. Without {@code token} the dashboard is served.
     */
    void login(RoutingContext rc) {
        String candidate = rc.request().getParam("token");
        if (candidate == null) {
            rc.next();
            return;
        }
        if (enabled()) {
            String address = addressOf(rc.request().remoteAddress());
            long wait = failures.retryAfterSeconds(address);
            if (wait > 0) {
                tooMany(rc, wait);
                return;
            }
            if (!matches(candidate)) {
                failures.failed(address);
                rc.response().setStatusCode(401).putHeader("content-type", "text/plain; charset=utf-8")
                        .putHeader("cache-control", "no-store")
                        .end("Argus: wrong access token in this link: " + HOW_TO + ".\n");
                return;
            }
            rc.response().addCookie(Cookie.cookie(COOKIE, URLEncoder.encode(candidate, StandardCharsets.UTF_8)).setPath("/").setHttpOnly(true)
                    .setSameSite(CookieSameSite.STRICT).setMaxAge(COOKIE_MAX_AGE_SECONDS).setSecure(rc.request().isSSL()));
        }
        rc.response().setStatusCode(302).putHeader("location", "/").putHeader("cache-control", "no-store")
                .putHeader("referrer-policy", "no-referrer").end();
    }

    /**
     * SockJS bridge: a registration needs the token, in the register message's headers or on the socket: the request
     * that opened it passed {@link #required} (with the header, {@code access_token} or the cookie, which SockJS takes
     * off the socket's headers, so that request's verdict is asked), and the token must still be the one in force
     * then (after {@code argus token rotate} the register message must carry the new one). Other events pass.
     */
    boolean allows(BridgeEvent event) {
        if (!enabled() || event.type() != BridgeEventType.REGISTER) return true;
        String address = addressOf(event.socket().remoteAddress());
        if (failures.retryAfterSeconds(address) > 0) return false;
        JsonObject raw = event.getRawMessage();
        JsonObject headers = raw != null ? raw.getJsonObject("headers") : null;
        String header = headers != null ? headers.getString("Authorization") : null;
        if (header != null && matches(bearer(header))) return true;
        if (header == null && openedWithTokenInForce(event.socket().routingContext())) return true;
        Verdict v = verdict(event.socket().headers(), event.socket().uri());
        if (v == Verdict.ALLOWED) return true;
        if (v == Verdict.WRONG || header != null) failures.failed(address);
        return false;
    }

    /** Whether the request {@code rc} passed {@link #required} with the token that is in force now. */
    private boolean openedWithTokenInForce(RoutingContext rc) {
        byte[] by = rc != null ? rc.get(AUTHORISED_BY) : null;
        byte[] now = digest;
        return by != null && now != null && MessageDigest.isEqual(by, now);
    }

    /** Whether the request's header, cookie or {@code access_token} carries the token. */
    Verdict verdict(MultiMap headers, String uri) {
        String header = headers.get("Authorization");
        String[] presented = {header != null ? bearer(header) : null, cookie(headers), queryParam(uri, "access_token")};
        boolean any = false;
        for (String candidate : presented) {
            if (candidate == null) continue;
            if (matches(candidate)) return Verdict.ALLOWED;
            any = true;
        }
        return any ? Verdict.WRONG : Verdict.MISSING;
    }

    boolean matches(String candidate) {
        byte[] expected = digest;
        return expected == null || candidate != null && MessageDigest.isEqual(expected, sha256(candidate));
    }

    private void unauthorized(RoutingContext rc, boolean clearCookie) {
        if (clearCookie) {
            rc.response().addCookie(Cookie.cookie(COOKIE, "").setPath("/").setHttpOnly(true)
                    .setSameSite(CookieSameSite.STRICT).setMaxAge(0));
        }
        rc.response().setStatusCode(401).putHeader("www-authenticate", "Bearer").putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", "missing or wrong access token: " + HOW_TO).encode());
    }

    private void tooMany(RoutingContext rc, long seconds) {
        String from = failures.everyoneLockedOut() ? "from all addresses together" : "from this address";
        rc.response().setStatusCode(429).putHeader("retry-after", Long.toString(seconds))
                .putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", "too many wrong access tokens " + from + "; try again in "
                        + seconds + " s").encode());
    }

    private static String addressOf(SocketAddress a) {
        return a != null && a.host() != null ? a.host() : "unknown";
    }

    /** The credentials of {@code Authorization: Bearer <token>}, or null for other schemes. */
    private static String bearer(String header) {
        return header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : null;
    }

    private static String cookie(MultiMap headers) {
        for (String line : headers.getAll("Cookie")) {
            for (String part : line.split(";")) {
                String p = part.strip();
                if (p.startsWith(COOKIE + "=")) {
                    String v = p.substring(COOKIE.length() + 1);
                    return v.isEmpty() ? null : decode(v);
                }
            }
        }
        return null;
    }

    static String queryParam(String uri, String name) {
        if (uri == null) return null;
        int q = uri.indexOf('?');
        if (q < 0) return null;
        for (String part : uri.substring(q + 1).split("&")) {
            if (part.startsWith(name + "=")) return decode(part.substring(name.length() + 1));
        }
        return null;
    }

    /** Percent-decoding; a malformed value is compared as sent (and so is wrong, not a 500). */
    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
