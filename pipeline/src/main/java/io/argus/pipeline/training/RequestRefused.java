package io.argus.pipeline.training;

/**
 * A request refused with an HTTP status of its own, beyond the 400, 404 and 409 that the training verticles' other
 * failures map to: 413 (weights larger than allowed) and 429 (too many requests waiting). The message says why and
 * what to do.
 */
public final class RequestRefused extends RuntimeException {
    private final int status;

    public RequestRefused(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() { return status; }
}
