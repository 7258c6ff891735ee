package io.argus.pipeline.http;

import io.argus.pipeline.config.ArgusConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * The token the HTTP API demands, decided once at start: secure by default. Argus serves live pictures of people's
 * homes and lets clients add cameras, label data and roll models back, so a server that anyone on the network can
 * reach must not be open just because nobody set {@code http.token}. The rules, in order:
 * <ol>
 *   <li>a configured {@code http.token} (or {@code ARGUS_HTTP_TOKEN}) wins;</li>
 *   <li>a loopback {@code http.host} (127.0.0.0/8, ::1, localhost) stays open: only this machine can connect;</li>
 *   <li>any other host gets a random token, generated at the first start and kept in {@code <cacheDir>/http-token}
 *       (mode 0600, see {@link TokenFile}), so it stays the same across restarts until {@code argus token rotate}.</li>
 * </ol>
 *
 * @param kind         which rule applied
 * @param token        the token, null when open
 * @param file         the token file (FILE only)
 * @param generatedNow whether this start generated the token: only then may its URL be printed
 */
public record AccessToken(Kind kind, String token, Path file, boolean generatedNow) {
    public enum Kind { OPEN, CONFIGURED, FILE }

    /** Applies the rules; reads or creates the token file (blocking: never on an event loop). */
    public static AccessToken resolve(ArgusConfig.Http http, Path cacheDir) throws IOException {
        if (http.token() != null) return new AccessToken(Kind.CONFIGURED, http.token(), null, false);
        if (loopback(http.host())) return new AccessToken(Kind.OPEN, null, null, false);
        Path file = TokenFile.in(cacheDir);
        try {
            TokenFile.Created t = TokenFile.readOrCreate(file);
            return new AccessToken(Kind.FILE, t.token(), file, t.isNew());
        } catch (IOException e) {
            throw new IOException("http: listening on " + http.host() + " needs an access token, and the generated one cannot be kept in "
                    + file + " (" + e.getMessage() + "); make cacheDir writable, or set http.token, or listen on 127.0.0.1", e);
        }
    }

    public boolean open() { return kind == Kind.OPEN; }

    /**
     * Whether {@code host} only accepts connections from this machine. Names other than {@code localhost} count as
     * reachable (no DNS lookup: a start must not hang on it, and a name is as good as any address to a neighbour).
     */
    public static boolean loopback(String host) {
        String h = host.strip();
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        if (h.equalsIgnoreCase("localhost")) return true;
        if (!h.matches("[0-9.]+") && !h.contains(":")) return false;
        try {
            return InetAddress.getByName(h).isLoopbackAddress(); // an address literal: parsed, not looked up
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
