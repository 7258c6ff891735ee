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
 *   <li>a configured {@code http.token} (or {@code ARGUS_HTTP_TOKEN}) wins; it must be a real token
 *       ({@link #weakness}: at least {@link #MIN_LENGTH} visible characters);</li>
 *   <li>a loopback {@code http.host} (127.0.0.0/8, ::1, localhost) stays open: only this machine can connect;</li>
 *   <li>any other host gets a random token, generated at the first start and kept in {@code <cacheDir>/http-token}
 *       (mode 0600, see {@link TokenFile}), so it stays the same across restarts until {@code argus token rotate}; a
 *       file that others may read or change, or that another user owns, is refused ({@link TokenFile#read}).</li>
 * </ol>
 *
 * @param kind         which rule applied
 * @param token        the token, null when open
 * @param file         the token file (FILE only)
 * @param generatedNow whether this start generated the token: only then may its URL be printed
 */
public record AccessToken(Kind kind, String token, Path file, boolean generatedNow) {
    public enum Kind { OPEN, CONFIGURED, FILE }

    /**
     * The fewest characters a token may have, configured or in the token file: 16 random characters are some 96 bits
     * (base64), out of reach of guessing at the rate {@link FailedAttempts} allows. A generated token has 43.
     */
    public static final int MIN_LENGTH = 16;

    /** Applies the rules; reads or creates the token file (blocking: never on an event loop). */
    public static AccessToken resolve(ArgusConfig.Http http, Path cacheDir) throws IOException {
        if (http.token() != null) {
            String weakness = weakness(http.token());
            if (weakness != null) throw new IllegalArgumentException("http.token: " + weakness + CONFIGURED_FIX);
            return new AccessToken(Kind.CONFIGURED, http.token(), null, false);
        }
        if (loopback(http.host())) return new AccessToken(Kind.OPEN, null, null, false);
        Path file = TokenFile.in(cacheDir);
        try {
            TokenFile.Created t = TokenFile.readOrCreate(file);
            return new AccessToken(Kind.FILE, t.token(), file, t.isNew());
        } catch (TokenFile.Refused e) {
            throw new IOException("http: the access token file is refused: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IOException("http: listening on " + http.host() + " needs an access token, and the generated one cannot be kept in "
                    + file + " (" + e.getMessage() + "); make cacheDir writable, or set http.token, or listen on 127.0.0.1", e);
        }
    }

    public boolean open() { return kind == Kind.OPEN; }

    /** How to get a good configured token, after the reason one was refused. */
    public static final String CONFIGURED_FIX = " (a good one: the output of `openssl rand -base64 32`; or leave http.token"
            + " unset and Argus generates one, see `argus token show`)";

    /**
     * What is wrong with {@code token} as an access token ("expected ..., found ..."), or null when it will do: at
     * least {@link #MIN_LENGTH} characters, all of them visible ASCII (a space or a control character would not survive
     * an Authorization header, a cookie or a URL). The message never repeats the token: it is a secret.
     */
    public static String weakness(String token) {
        if (token.length() < MIN_LENGTH) {
            return "expected a token of at least " + MIN_LENGTH + " characters, found " + token.length();
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                return "expected visible ASCII characters only (no spaces), found " + String.format("U+%04X", (int) c)
                        + " at position " + i;
            }
        }
        return null;
    }

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
