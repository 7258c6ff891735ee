package io.argus.pipeline.http;

import io.argus.pipeline.config.LoopbackHost;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.WebOrigin;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The first handler of the router: a browser cannot be turned against the API. A page of another site can make the
 * browser send requests here with the dashboard's cookie (SameSite does not tell another port of the same host apart),
 * and on an open server it needs no cookie at all; what the browser adds by itself and the page cannot forge is the
 * request's {@code Origin} and, for the address it connected to, its {@code Host}. So:
 * <ul>
 *   <li>a state-changing request (POST, PUT, DELETE, PATCH), a WebSocket upgrade and every request of the SockJS bridge
 *       ({@code /eventbus}, whose transports are plain GETs and POSTs) with an {@code Origin} that is neither this
 *       server's own (scheme, host and port as the request's Host says) nor listed in {@code http.allowedOrigins} is
 *       refused, 403 with the reason. Requests without an Origin (curl, scripts, other servers) pass: a browser always
 *       sends one with these;</li>
 *   <li>on an open server (loopback, no token) the Host must name this machine (localhost, 127.0.0.0/8, [::1], any
 *       port) or be listed in {@code http.allowedHosts}, else 403: a page whose own name its DNS server later resolves
 *       to 127.0.0.1 (DNS rebinding) is then same-origin with the API by the browser's rules, and the Host, still its
 *       name, is what gives it away;</li>
 *   <li>no response grants CORS to an origin not listed in {@code http.allowedOrigins}: the SockJS handler would echo
 *       any Origin with {@code access-control-allow-credentials: true} (or allow {@code *}); those headers are taken
 *       off. The dashboard needs none: it is same-origin.</li>
 * </ul>
 */
final class OriginCheck implements Handler<RoutingContext> {
    private static final Set<HttpMethod> STATE_CHANGING = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE,
            HttpMethod.PATCH);
    private static final List<String> CORS_HEADERS = List.of("access-control-allow-origin",
            "access-control-allow-credentials", "access-control-allow-headers", "access-control-allow-methods",
            "access-control-max-age", "access-control-expose-headers");

    private final Set<WebOrigin> allowedOrigins;
    private final Set<String> allowedHosts;
    private final BooleanSupplier open;

    /**
     * @param allowedOrigins origins (as {@link WebOrigin#parse} reads them) whose pages may use the API besides its own
     * @param allowedHosts   host names ({@link WebOrigin#hostName}) an open server answers to besides loopback ones
     * @param open           whether the server has no token now (the Host check applies then)
     */
    OriginCheck(List<String> allowedOrigins, List<String> allowedHosts, BooleanSupplier open) {
        this.allowedOrigins = Set.copyOf(allowedOrigins.stream().map(WebOrigin::parse).toList());
        this.allowedHosts = Set.copyOf(allowedHosts);
        this.open = open;
    }

    @Override
    public void handle(RoutingContext rc) {
        HttpServerRequest req = rc.request();
        if (open.getAsBoolean() && !servedHost(req)) {
            String host = req.getHeader(HttpHeaders.HOST);
            refuse(rc, "Host " + Names.quoted(host) + " is not this machine's name: this server has no access token, "
                    + "so it answers only to localhost, 127.0.0.1 or [::1] (a page of another site whose name resolves "
                    + "here must not reach it); list the name in http.allowedHosts to use it");
            return;
        }
        String origin = req.getHeader(HttpHeaders.ORIGIN);
        WebOrigin from = origin != null ? WebOrigin.parseOrNull(origin) : null;
        boolean listed = from != null && allowedOrigins.contains(from);
        if (origin != null && !listed && checked(rc)) {
            WebOrigin own = WebOrigin.of(req);
            if (from == null || !from.equals(own)) {
                refuse(rc, "Origin " + Names.quoted(origin) + " is not this server's own (" + (own != null ? own : "no Host")
                        + ") nor listed in http.allowedOrigins: a page of another site may not change anything here or "
                        + "open its WebSockets");
                return;
            }
        }
        if (!listed) rc.addHeadersEndHandler(v -> withoutCors(rc.response().headers()));
        rc.next();
    }

    /** Requests a page of another site must not make: state changes, WebSockets, the SockJS bridge. */
    private static boolean checked(RoutingContext rc) {
        HttpServerRequest req = rc.request();
        if (STATE_CHANGING.contains(req.method())) return true;
        String upgrade = req.getHeader(HttpHeaders.UPGRADE);
        if (upgrade != null && upgrade.toLowerCase(java.util.Locale.ROOT).contains("websocket")) return true;
        String path = rc.normalizedPath();
        return path.equals("/eventbus") || path.startsWith("/eventbus/");
    }

    /**
     * Whether the request's Host names this machine or an allowed host. A request without a Host passes (browsers
     * always send one); one whose Host is not a host name does not.
     */
    private boolean servedHost(HttpServerRequest req) {
        WebOrigin to = WebOrigin.of(req);
        if (to == null) return req.getHeader(HttpHeaders.HOST) == null && req.authority() == null;
        return LoopbackHost.is(to.host()) || allowedHosts.contains(to.host());
    }

    private static void withoutCors(MultiMap headers) {
        for (String h : CORS_HEADERS) headers.remove(h);
    }

    private static void refuse(RoutingContext rc, String reason) {
        rc.response().setStatusCode(403).putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", reason).encode());
    }
}
