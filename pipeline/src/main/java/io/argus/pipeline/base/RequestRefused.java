package io.argus.pipeline.base;

import io.vertx.core.eventbus.ReplyException;

/**
 * A request an in-process service refused, with the HTTP status the REST routes answer with (400 a malformed value,
 * 404 nothing of that name, 409 not now, 413 too large, 429 too many waiting...) and a message that says why and
 * what to do. The services' futures fail with it; {@link #statusOf} maps any failure to its status.
 */
public final class RequestRefused extends RuntimeException {
    private final int status;

    public RequestRefused(int status, String message) {
        super(message);
        this.status = status;
    }

    /** {@code cause}: what made the request fail (a model that did not load, say), kept for the log. */
    public RequestRefused(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() { return status; }

    /** Nothing of that name (404). */
    public static RequestRefused notFound(String message) { return new RequestRefused(404, message); }

    /** Not now: something else is under way, or the state does not allow it (409). */
    public static RequestRefused conflict(String message) { return new RequestRefused(409, message); }

    /**
     * The HTTP status of a failed request: a refusal's own, a reply's failure code from another node (the clustered
     * event bus), 400 for a malformed value ({@link IllegalArgumentException}, as {@code Names.require} throws), else
     * 500.
     */
    public static int statusOf(Throwable e) {
        if (e instanceof RequestRefused r) return r.status();
        if (e instanceof ReplyException re && re.failureCode() >= 400) return re.failureCode();
        if (e instanceof IllegalArgumentException) return 400;
        return 500;
    }
}
