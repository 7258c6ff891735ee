package io.argus.pipeline.http;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.LoopbackHost;
import io.argus.pipeline.config.TokenStrength;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The token the HTTP API demands, decided once at start: secure by default. Argus serves live pictures of people's
 * homes and lets clients add cameras, label data and roll models back, so a server that anyone on the network can
 * reach must not be open just because nobody set {@code http.token}. The rules, in order:
 * <ol>
 *   <li>a configured {@code http.token} (or {@code ARGUS_HTTP_TOKEN}) wins; it must be a real token
 *       ({@link TokenStrength#weakness}: at least {@link TokenStrength#MIN_LENGTH} visible characters);</li>
 *   <li>a loopback {@code http.host} (127.0.0.0/8, ::1, localhost: {@link LoopbackHost}) stays open: only this
 *       machine can connect;</li>
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

    /** Applies the rules; reads or creates the token file (blocking: never on an event loop). */
    public static AccessToken resolve(ArgusConfig.Http http, Path cacheDir) throws IOException {
        if (http.token() != null) {
            String weakness = TokenStrength.weakness(http.token());
            if (weakness != null) throw new IllegalArgumentException("http.token: " + weakness + TokenStrength.CONFIGURED_FIX);
            return new AccessToken(Kind.CONFIGURED, http.token(), null, false);
        }
        if (LoopbackHost.is(http.host())) return new AccessToken(Kind.OPEN, null, null, false);
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
}
