package io.argus.pipeline.config;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A web origin (RFC 6454): scheme, host and port, what a browser sends in {@code Origin} and what tells two sites
 * apart. Hosts are compared in lower case without IPv6 brackets, ports with the scheme's default filled in, so
 * {@code http://LOCALHOST} and {@code http://localhost:80} are one origin.
 *
 * @param port the port, the scheme's default when the text has none
 */
public record WebOrigin(String scheme, String host, int port) {

    /**
     * {@code text} as an origin: {@code http} or {@code https}, a host, an optional port, nothing else (no path, no
     * user). An IllegalArgumentException says what was expected and what was found; an opaque origin ({@code null}, a
     * sandboxed page or a file) is none.
     */
    public static WebOrigin parse(String text) {
        String expected = "expected an origin scheme://host[:port] (http or https, no path), found " + Names.quoted(text);
        if (text == null || text.isBlank()) throw new IllegalArgumentException(expected);
        URI u;
        try {
            u = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(expected);
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        boolean bare = (u.getRawPath() == null || u.getRawPath().isEmpty()) && u.getRawQuery() == null
                && u.getRawFragment() == null && u.getRawUserInfo() == null;
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null || !bare) {
            throw new IllegalArgumentException(expected);
        }
        return new WebOrigin(scheme, hostName(u.getHost()), u.getPort() >= 0 ? u.getPort() : defaultPort(scheme));
    }

    /** {@link #parse}, or null when {@code text} is not an origin. */
    public static WebOrigin parseOrNull(String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The origin the request is addressed to, as its {@code Host} says (null without a Host that names a host): the
     * origin of the pages this server gave the browser that sent it, unless a proxy in front of it changed the Host.
     */
    public static WebOrigin of(HttpServerRequest req) {
        HostAndPort authority = req.authority();
        if (authority == null || authority.host() == null) return null;
        String scheme = req.isSSL() ? "https" : "http";
        try {
            return new WebOrigin(scheme, hostName(authority.host()), authority.port() >= 0 ? authority.port() : defaultPort(scheme));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * A host name or address as compared here: lower case, IPv6 without its brackets. An IllegalArgumentException
     * when {@code host} is not a name or an address (a port, a scheme or a path with it, say).
     */
    public static String hostName(String host) {
        String h = host == null ? "" : host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        if (!h.matches("[a-z0-9]([a-z0-9._-]*[a-z0-9])?") && !h.matches("[0-9a-f:.]*:[0-9a-f:.]*")) {
            throw new IllegalArgumentException("expected a host name or address (no scheme, port or path), found " + Names.quoted(host));
        }
        return h;
    }

    private static int defaultPort(String scheme) { return scheme.equals("https") ? 443 : 80; }

    /** {@code scheme://host[:port]}, the port only when not the scheme's default. */
    @Override
    public String toString() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return scheme + "://" + h + (port == defaultPort(scheme) ? "" : ":" + port);
    }
}
