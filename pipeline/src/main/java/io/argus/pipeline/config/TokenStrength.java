package io.argus.pipeline.config;

/**
 * What an access token must be to be accepted, configured ({@code http.token}, checked when the config is read) or
 * kept in the token file ({@code http/TokenFile}).
 */
public final class TokenStrength {
    private TokenStrength() {}

    /**
     * The fewest characters a token may have, configured or in the token file: 16 random characters are some 96 bits
     * (base64), out of reach of guessing at the rate {@code http/FailedAttempts} allows. A generated token has 43.
     */
    public static final int MIN_LENGTH = 16;

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
}
