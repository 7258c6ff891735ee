package io.argus.pipeline.base;

import io.vertx.core.eventbus.ReplyException;
import java.util.List;

/**
 * A request an in-process service refused, with the HTTP status the REST routes answer with (400 a malformed value,
 * 404 nothing of that name, 409 not now, 413 too large, 429 too many waiting...) and a message that says why and
 * what to do. The services' futures fail with it; {@link #statusOf} maps any failure to its status.
 */
public final class RequestRefused extends RuntimeException {
    /** The most valid values a refusal lists: a model of 1000 classes should not make a 20 KB error. */
    public static final int MAX_LISTED = 20;

    private final int status;
    private final String field;
    private final List<String> valid;
    private final int validCount;

    public RequestRefused(int status, String message) {
        this(status, message, null, null, List.of());
    }

    /** {@code cause}: what made the request fail (a model that did not load, say), kept for the log. */
    public RequestRefused(int status, String message, Throwable cause) {
        this(status, message, cause, null, List.of());
    }

    private RequestRefused(int status, String message, Throwable cause, String field, List<String> valid) {
        super(message, cause);
        this.status = status;
        this.field = field;
        this.validCount = valid.size();
        this.valid = List.copyOf(valid.subList(0, Math.min(MAX_LISTED, valid.size())));
    }

    /**
     * A value that is not one of {@code valid} (400, or 404 for an id that names nothing): the answer names the
     * {@code field} and lists the valid values, the first {@link #MAX_LISTED} of them with their count.
     */
    public static RequestRefused notOneOf(int status, String field, String message, List<String> valid) {
        return new RequestRefused(status, message + " (" + field + ": " + listed(valid) + ")", null, field, valid);
    }

    /** {@code values} for a message: all of them, or the first {@link #MAX_LISTED} and how many there are. */
    public static String listed(List<String> values) {
        if (values.isEmpty()) return "none";
        if (values.size() <= MAX_LISTED) return String.join(", ", values);
        return String.join(", ", values.subList(0, MAX_LISTED)) + "... (" + values.size() + " in all)";
    }

    public int status() { return status; }

    /** The request's field at fault; null when the refusal names none. */
    public String field() { return field; }

    /** Valid values of {@link #field} (at most {@link #MAX_LISTED}: see {@link #validCount}). */
    public List<String> valid() { return valid; }

    public int validCount() { return validCount; }

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
